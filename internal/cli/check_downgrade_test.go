package cli

import (
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"a2atop/internal/testcert"
)

// `a2atop check` on an agent configured https (a real TLS agent on
// loopback) whose card names only an interface in plain http, on a
// second, plain listener that counts what it is sent: the row fails in
// words, shows no LISTTASKS answer, and the plain listener sees no
// connection. The same agent with an https interface listed after the
// http one is checked over https.
func TestCheckHTTPSAgentWithPlainHTTPInterface(t *testing.T) {
	dir := isolate(t)
	ca := testcert.NewCA(t, "a2atop test")
	ca.WriteCA(t, dir)
	h := a2asrv.NewHandler(idleExec{})

	pl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var plainConns atomic.Int32
	plain := &http.Server{Handler: a2asrv.NewJSONRPCHandler(h), ConnState: func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			plainConns.Add(1)
		}
	}}
	go plain.Serve(pl)
	defer plain.Close()

	tl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	httpIface := a2a.NewAgentInterface("http://"+pl.Addr().String()+"/invoke", a2a.TransportProtocolJSONRPC)
	httpsIface := a2a.NewAgentInterface("https://"+tl.Addr().String()+"/invoke", a2a.TransportProtocolJSONRPC)
	card := func(ifaces ...*a2a.AgentInterface) *a2a.AgentCard {
		return &a2a.AgentCard{Name: "tls agent", Description: "d", Version: "1", SupportedInterfaces: ifaces,
			DefaultInputModes: []string{"text"}, DefaultOutputModes: []string{"text"}}
	}
	mux := http.NewServeMux()
	mux.Handle("/only-http"+a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(card(httpIface)))
	mux.Handle("/both"+a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(card(httpIface, httpsIface)))
	mux.Handle("/invoke", a2asrv.NewJSONRPCHandler(h))
	tlsSrv := &http.Server{Handler: mux, TLSConfig: ca.ServerConfig(t, nil)}
	go tlsSrv.ServeTLS(tl, "", "")
	defer tlsSrv.Close()

	base := "https://" + tl.Addr().String()
	var doc strings.Builder
	for _, name := range []string{"only-http", "both"} {
		doc.WriteString("[[agent]]\nname = \"" + name + "\"\nurl = \"" + base + "\"\ncard_path = \"/" + name + a2asrv.WellKnownAgentCardPath +
			"\"\n[agent.auth]\nca_file = \"ca.crt\"\n")
	}
	cfg := filepath.Join(dir, "agents.toml")
	if err := os.WriteFile(cfg, []byte(doc.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCmd(context.Background(), "check", "--config", cfg, "--timeout", "10s")
	if code != exitFailed {
		t.Fatalf("check = %d, want %d\n%s%s", code, exitFailed, out, errOut)
	}
	rows := map[string][]string{}
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			rows[f[0]] = f
		}
	}
	if r := rows["only-http"]; len(r) < 8 || r[6] != "-" || !strings.Contains(strings.Join(r, " "),
		"FAIL: the card offers only interfaces in plain http (JSONRPC "+httpIface.URL+") and the configured url is https: "+
			"a2atop sends nothing in clear text to an agent configured https") {
		t.Errorf("the only-http row does not fail in words with no LISTTASKS answer:\n%s", out)
	}
	if r := rows["both"]; !strings.HasSuffix(strings.Join(r, " "), " ok") {
		t.Errorf("the agent with an https interface too is not checked over it:\n%s", out)
	}
	if n := plainConns.Load(); n != 0 {
		t.Fatalf("the plain-http listener was sent %d connections", n)
	}
}

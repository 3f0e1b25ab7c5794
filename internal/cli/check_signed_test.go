package cli

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	jose "github.com/go-jose/go-jose/v4"

	"a2atop/internal/cardtest"
)

// signedCardJSON signs card with key as kid "k1" (a detached ES256 JWS
// over its RFC 8785 form) and returns the JSON an agent serves.
func signedCardJSON(t *testing.T, card *a2a.AgentCard, key *ecdsa.PrivateKey) []byte {
	t.Helper()
	cardtest.Sign(t, card, key, "k1", "")
	b, err := json.Marshal(card)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// `a2atop check` against a real agent serving a validly signed card with
// "Name":"" added (Go's decoder reads it as the name; the signature does
// not cover an empty member): the CARD column says "signature invalid",
// not "signed ✓ (key k1)", and with require_signed_card the row fails
// in words.
func TestCheckSignedCardChangedAfterSigning(t *testing.T) {
	dir := isolate(t)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	card := &a2a.AgentCard{Name: "signed agent", Description: "d", Version: "1",
		SupportedInterfaces: []*a2a.AgentInterface{a2a.NewAgentInterface(base+"/invoke", a2a.TransportProtocolJSONRPC)},
		DefaultInputModes:   []string{"text"}, DefaultOutputModes: []string{"text"}}
	body := signedCardJSON(t, card, key)
	body = append(body[:len(body)-1], `,"Name":""}`...)
	mux := http.NewServeMux()
	mux.HandleFunc(a2asrv.WellKnownAgentCardPath, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	})
	mux.Handle("/invoke", a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(idleExec{})))
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	defer srv.Close()

	pub, _ := json.Marshal(jose.JSONWebKey{Key: &key.PublicKey, KeyID: "k1"})
	if err := os.WriteFile(filepath.Join(dir, "card-key.json"), pub, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "agents.toml")
	doc := "[[agent]]\nname = \"lax\"\nurl = \"" + base + "\"\n[agent.auth]\ncard_key_file = \"card-key.json\"\n" +
		"[[agent]]\nname = \"strict\"\nurl = \"" + base + "\"\n[agent.auth]\ncard_key_file = \"card-key.json\"\nrequire_signed_card = true\n"
	if err := os.WriteFile(cfg, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCmd(context.Background(), "check", "--config", cfg, "--timeout", "10s")
	if code != exitFailed {
		t.Fatalf("check = %d, want %d\n%s%s", code, exitFailed, out, errOut)
	}
	rows := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			rows[f[0]] = l
		}
	}
	if l := rows["lax"]; !strings.Contains(l, "signature invalid: ") || strings.Contains(l, "signed ✓") {
		t.Errorf("the lax row does not say the signature is invalid:\n%s", out)
	}
	if l := rows["strict"]; !strings.Contains(l, "FAIL") || !strings.Contains(l, "require_signed_card is set") {
		t.Errorf("the strict row is not refused in words:\n%s", out)
	}
}

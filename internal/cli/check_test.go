package cli

import (
	"context"
	"iter"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// idleExec is an executor for an agent nobody sends work to.
type idleExec struct{}

func (idleExec) Execute(context.Context, *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(func(a2a.Event, error) bool) {}
}

func (idleExec) Cancel(context.Context, *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(func(a2a.Event, error) bool) {}
}

// A Go SDK agent with no authentication refuses ListTasks to the
// anonymous caller (-31401). It is reachable: check reports it as such,
// says "no: these credentials cannot list tasks" in the ListTasks
// column, and exits 0.
func TestCheckAgentThatRefusesListing(t *testing.T) {
	isolate(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	card := &a2a.AgentCard{Name: "anon", Version: "1", Capabilities: a2a.AgentCapabilities{Streaming: true},
		SupportedInterfaces: []*a2a.AgentInterface{a2a.NewAgentInterface(base+"/invoke", a2a.TransportProtocolJSONRPC)},
		DefaultInputModes:   []string{"text"}, DefaultOutputModes: []string{"text"}}
	mux := http.NewServeMux()
	mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(card))
	mux.Handle("/invoke", a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(idleExec{})))
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	defer srv.Close()

	code, out, errOut := runCmd(context.Background(), "check", "--timeout", "10s", base)
	if code != exitOK {
		t.Fatalf("check = %d, want %d\n%s%s", code, exitOK, out, errOut)
	}
	for _, want := range []string{"1 of 1 agents reachable", "no: these credentials cannot list tasks", "  ok"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

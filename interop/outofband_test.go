package interop

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"

	"a2atop/approvals"
	"a2atop/model"
)

// TestApprovalsOutOfBandAgent: a Go SDK agent without a hand-off
// interceptor refuses any message while its task is AUTH_REQUIRED
// (-32603 "task execution is already in progress"). Through a2aclient on
// every binding it offers, approvals must say "this agent expects
// out-of-band authorization", keep the decision in the journal as
// refused, and ask for a second confirmation before another decision on
// the same prompt.
func TestApprovalsOutOfBandAgent(t *testing.T) {
	ga := startGoAgent(t, false)
	for _, tg := range []struct {
		name, binding, protocol string
		sdk                     a2a.TransportProtocol
		v                       a2a.ProtocolVersion
	}{
		{"jsonrpc", "jsonrpc", "1.0", a2a.TransportProtocolJSONRPC, a2a.Version},
		{"rest", "rest", "1.0", a2a.TransportProtocolHTTPJSON, a2a.Version},
		{"grpc", "grpc", "1.0", a2a.TransportProtocolGRPC, a2a.Version},
		{"0.3-jsonrpc", "jsonrpc", "0.3", a2a.TransportProtocolJSONRPC, a2av0.Version},
		{"0.3-rest", "rest", "0.3", a2a.TransportProtocolHTTPJSON, a2av0.Version},
	} {
		t.Run(tg.name, func(t *testing.T) {
			target := target{Name: "go/" + tg.name, URL: ga.URL, Binding: tg.binding, Protocol: tg.protocol, SDK: tg.sdk, Version: tg.v}
			if tg.sdk == a2a.TransportProtocolGRPC {
				target.AllowedHosts = []string{ga.GRPC}
			}
			token := "oob-" + tg.name
			raw, _ := target.client(t, token)
			task := send(t, raw, "", "approve-me", false)
			opts := target.agent("peer", token)
			opts.Tasks = []a2a.TaskID{task.ID}
			c := runManager(t, opts)
			svc, err := approvals.Open(approvals.Options{JournalPath: filepath.Join(t.TempDir(), "journal.jsonl"), Sender: c.M, Approver: "tester@interop"})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { svc.Close() })
			var items []approvals.Item
			c.wait(t, "the AUTH_REQUIRED task in the inbox", func() bool {
				items = svc.Queue(c.Fleet, model.SortAge)
				return len(items) == 1 && items[0].Task.State == a2a.TaskStateAuthRequired
			})
			var d *approvals.Decision
			c.with(func() { d, err = svc.Prepare(items[0], approvals.Input{Kind: approvals.KindApprove}) })
			if err != nil {
				t.Fatal(err)
			}
			out := svc.Send(ctxT(t), d)
			if out.Result != approvals.ResultRefused || out.Problem != approvals.ProblemOutOfBand {
				t.Fatalf("approve on a Go SDK agent without hand-off: %s/%s (RPC code %d) %v", out.Result, out.Problem, rpcCodeOf(out.Err), out.Err)
			}
			if !strings.Contains(out.Words(), "expects out-of-band authorization") || out.Next() == "" {
				t.Fatalf("words %q, next %q", out.Words(), out.Next())
			}
			if e, _ := svc.Entry(d.MessageID); e.Result != approvals.ResultRefused || e.Problem != approvals.ProblemOutOfBand || e.Via != "send" {
				t.Fatalf("journal: %s/%s via %q, want refused/out-of-band from the send", e.Result, e.Problem, e.Via)
			}
			c.with(func() {
				_, err = svc.Prepare(svc.Queue(c.Fleet, model.SortAge)[0], approvals.Input{Kind: approvals.KindApprove})
			})
			if !errors.Is(err, approvals.ErrAlreadyDecided) {
				t.Fatalf("a second decision on the same prompt without confirming again: %v", err)
			}
		})
	}
}

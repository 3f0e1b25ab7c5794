package approvals

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// refusingHub is the Hub of a Service under test that sends nothing: the
// real hub (package hub) runs in that package's tests; here only the
// journal it publishes is followed.
type refusingHub struct{ sends int }

func (h *refusingHub) Send(context.Context, Request) Outcome {
	h.sends++
	return Outcome{Result: ResultRefused, Problem: ProblemHub, Err: errors.New("no hub in this test")}
}
func (h *refusingHub) Reconcile(context.Context) []Outcome  { return nil }
func (h *refusingHub) NoteLeft(context.Context, Note) error { return nil }

// tap collects what a Service publishes through OnJournal.
type tap struct {
	mu    sync.Mutex
	lines []JournalLine
}

func (tp *tap) on(ls []JournalLine) {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	for _, l := range ls {
		tp.lines = append(tp.lines, JournalLine{N: l.N, Raw: append([]byte(nil), l.Raw...), Torn: l.Torn})
	}
}

func (tp *tap) all() []JournalLine {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	return append([]JournalLine(nil), tp.lines...)
}

// TestMirrorHoldsTheHubsJournal: a Service attached to a hub, following
// the lines the hub's Service publishes, holds the same journal: the
// same entries, the same damage, the same refusals, and it writes
// nothing of its own.
func TestMirrorHoldsTheHubsJournal(t *testing.T) {
	var tp tap
	fx := newFixture(t, func(o *Options) { o.OnJournal = tp.on })
	ask, deploy := fx.start(t, "ask"), fx.start(t, "deploy")
	if o := fx.svc.Send(context.Background(), fx.mustPrepare(t, ask, Input{Kind: KindReply, Text: "main"})); o.Result != ResultAccepted {
		t.Fatalf("reply: %s", o.Words())
	}
	// A damaged line naming the deployer's agent, appended by hand, and a
	// torn last line: the hub's Service reads them on its next Refresh.
	appendRecords(t, fx.path, record{Type: recDecision, ID: "lost", Agent: "agent", Task: deploy.Key.ID, Kind: KindApprove})
	b, _ := os.ReadFile(fx.path)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	lines[len(lines)-1] = strings.Replace(lines[len(lines)-1], `"approve"`, `"apprOve"`, 1)
	if err := os.WriteFile(fx.path, []byte(strings.Join(lines, "\n")+"\n"+`{"v":2,"type":"decision","id":"to`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := fx.svc.Refresh(); err != nil {
		t.Fatal(err)
	}
	h := &refusingHub{}
	mirror, err := Open(Options{Hub: h, Approver: "ops@test", Agents: []Agent{{Name: "agent", URL: fx.ag.srv.URL}}})
	if err != nil {
		t.Fatal(err)
	}
	published := tp.all()
	half := len(published) / 2
	if err := mirror.Follow(published[:half+1]); err != nil {
		t.Fatal(err)
	}
	if err := mirror.Follow(published); err != nil { // the lines it has are skipped
		t.Fatal(err)
	}
	if got, want := entryWords(mirror.Journal()), entryWords(fx.svc.Journal()); got != want {
		t.Errorf("the mirror's journal:\n%s\nthe hub's:\n%s", got, want)
	}
	if got, want := len(mirror.Damage()), len(fx.svc.Damage()); got != want || want < 2 {
		t.Errorf("the mirror holds %d damaged lines, the hub %d (want the changed byte and the torn line)", got, want)
	}
	if err := mirror.Blocked("agent"); !errors.Is(err, ErrJournalDamaged) {
		t.Errorf("the mirror does not block the agent the damaged line names: %v", err)
	}
	if n, hash := mirror.Followed(); n != published[len(published)-1].N || hash != LineHash(published[len(published)-1].Raw) {
		t.Errorf("Followed = %d %s", n, hash)
	}
	if err := mirror.Observe([]Observation{{Agent: "agent", TaskID: ask.Key.ID, State: a2a.TaskStateCompleted}}); err != nil {
		t.Errorf("Observe on a mirror: %v (it is the hub's work: nothing, no error)", err)
	}
	if _, err := mirror.Accept(1, "looked"); err == nil {
		t.Error("a mirror accepted a damaged line: that is the hub's journal's to do")
	}
	if h.sends != 0 {
		t.Errorf("the mirror sent %d decisions while only following", h.sends)
	}
}

func entryWords(es []Entry) string {
	var b strings.Builder
	for _, e := range es {
		b.WriteString(strings.Join([]string{e.MessageID, e.Agent, string(e.TaskID), string(e.Kind), e.Approver, string(e.Result), e.Prompt}, " "))
		b.WriteString("\n")
	}
	return b.String()
}

// TestPrepareAsBuildsTheSameMessage: the hub, preparing again for the
// approver with the dashboard's messageId and time, builds the message
// the dashboard showed; any difference is named.
func TestPrepareAsBuildsTheSameMessage(t *testing.T) {
	fx := newFixture(t)
	deploy := fx.start(t, "deploy")
	at := time.Date(2026, 11, 29, 14, 2, 11, 0, time.UTC)
	dash := fx.open(t, "alice")
	mine, err := dash.PrepareAs(dash.ItemFor(deploy), Input{Kind: KindApprove, Reason: "ticket 4411"}, Author{Approver: "alice", MessageID: "m-1", At: at})
	if err != nil {
		t.Fatal(err)
	}
	again, err := fx.svc.PrepareAs(fx.svc.ItemFor(deploy), mine.Input(), Author{Approver: "alice", MessageID: mine.MessageID, At: mine.At})
	if err != nil {
		t.Fatal(err)
	}
	if err := SameMessage(mine, again); err != nil {
		t.Fatalf("the same input built twice: %v", err)
	}
	other, _ := fx.svc.PrepareAs(fx.svc.ItemFor(deploy), Input{Kind: KindApprove, Reason: "ticket 4411"}, Author{Approver: "mallory", MessageID: "m-1", At: at})
	if err := SameMessage(mine, other); !errors.Is(err, ErrNotTheMessage) || !strings.Contains(err.Error(), "approver") {
		t.Errorf("another approver: %v", err)
	}
	forged := *mine
	forged.Message = a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("approved"), a2a.NewDataPart(map[string]any{"decision": "approve", "approver": "alice", "amount": 1e6}))
	forged.Message.ID, forged.Message.TaskID, forged.Message.ContextID = mine.Message.ID, mine.Message.TaskID, mine.Message.ContextID
	if err := SameMessage(&forged, again); !errors.Is(err, ErrNotTheMessage) || !strings.Contains(err.Error(), "parts") {
		t.Errorf("other parts: %v", err)
	}
}

// TestWinnerWords: a decision refused because another came first says
// who decided, when, and how it ended.
func TestWinnerWords(t *testing.T) {
	at := time.Now()
	w := Winner{Approver: "alice", At: at, Kind: KindApprove, Result: ResultAccepted}
	want := "decided by alice at " + at.Local().Format("15:04:05") + ": approved"
	if o := (Outcome{Result: ResultRefused, Problem: ProblemDecided, Winner: &w}); o.Words() != want {
		t.Errorf("Words = %q, want %q", o.Words(), want)
	}
	w.Result = ResultPending
	if got := w.Words(); !strings.HasSuffix(got, ": approved (being sent)") {
		t.Errorf("pending: %q", got)
	}
	w.Kind, w.Result, w.Problem = KindReply, ResultRefused, ProblemOutOfBand
	if got := w.Words(); !strings.Contains(got, "replied (this agent expects out-of-band authorization") {
		t.Errorf("refused: %q", got)
	}
}

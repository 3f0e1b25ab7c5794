package approvals

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
)

// TestRefreshShowsDecisionsOfOtherProcesses: while a dashboard's Service
// is open, `a2atop reply` (another process) answers a prompt it shows.
// Refresh brings the decision in, reading only what was appended; the
// entry and the queue item say who answered elsewhere, and when; a second
// Refresh finds nothing new.
func TestRefreshShowsDecisionsOfOtherProcesses(t *testing.T) {
	fx := newFixture(t)
	mt := fx.start(t, "ask")
	st := fx.svc.st.(*fileStore)
	read, size := st.read, fileSize(t, fx.path)

	c := startChild(t, fx, mt.Key.ID, "reply", "cli@test")
	c.Say(t, "go")
	r := c.result(t)
	if r.Result != ResultAccepted {
		t.Fatalf("the other process: %+v", r)
	}
	if len(fx.svc.Journal()) != 0 {
		t.Fatal("the journal view changed before Refresh")
	}
	got, err := fx.svc.Refresh()
	if err != nil {
		t.Fatal(err)
	}
	if appended := fileSize(t, fx.path) - size; st.read-read != appended {
		t.Fatalf("Refresh read %d bytes; %d were appended", st.read-read, appended)
	}
	if !got.Changed || len(got.Decisions) != 1 || got.Decisions[0].MessageID != r.MessageID || !got.Decisions[0].Elsewhere {
		t.Fatalf("Refresh = %+v", got)
	}
	e := got.Decisions[0]
	if w := e.ElsewhereWords(); !strings.HasPrefix(w, "answered elsewhere by cli@test at ") || !strings.HasSuffix(w, ": replied") {
		t.Fatalf("ElsewhereWords = %q", w)
	}
	if j := fx.svc.Journal(); len(j) != 1 || j[0].Result != ResultAccepted || j[0].AgentState() == "" {
		t.Fatalf("journal = %+v", j)
	}
	it := fx.svc.ItemFor(mt) // the inbox still shows the prompt it had
	if it.Prior == nil || !strings.HasPrefix(it.AnsweredElsewhere(), "answered elsewhere by cli@test") {
		t.Fatalf("item = %+v (%q)", it.Prior, it.AnsweredElsewhere())
	}
	if _, err := fx.svc.Prepare(it, Input{Kind: KindReply, Text: "release"}); !errors.Is(err, ErrAlreadyDecided) || !strings.Contains(err.Error(), "answered elsewhere by cli@test") {
		t.Fatalf("Prepare on the answered prompt: %v", err)
	}
	if again, err := fx.svc.Refresh(); err != nil || again.Changed || len(again.Decisions) != 0 {
		t.Fatalf("second Refresh = %+v, %v", again, err)
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// TestJournalFollowsTaskToItsEnd: an approve the agent refuses (it
// takes authorization out of band), then the grant comes out of band: the
// fleet sees the task work, then complete. Observations names each state
// the journal does not hold, Observe records it once (a second dashboard
// observing the same change records nothing), and the entry ends at
// completed, not at working.
func TestJournalFollowsTaskToItsEnd(t *testing.T) {
	fx := newFixture(t)
	mt := fx.start(t, "oob")
	d := fx.mustPrepare(t, mt, Input{Kind: KindApprove})
	other := fx.open(t, "other@test")

	f := model.NewFleet(model.Options{})
	f.AddAgent("agent", fx.ag.srv.URL)
	apply := func(snap *a2a.Task) {
		f.Apply([]model.Event{{Kind: model.EventTask, Agent: "agent", Source: model.SourcePoll, At: time.Now(), Task: snap}})
	}
	apply(mt.Snapshot)
	if obs := fx.svc.Observations(f); len(obs) != 0 {
		t.Fatalf("observations before any decision: %+v", obs)
	}
	if out := fx.svc.Send(context.Background(), d); out.Problem != ProblemOutOfBand {
		t.Fatalf("send: %s/%s %v", out.Result, out.Problem, out.Err)
	}
	if obs := fx.svc.Observations(f); len(obs) != 0 {
		t.Fatalf("the fleet still shows the answered prompt, yet: %+v", obs)
	}
	fx.ag.grant(mt.Key.ID)
	final := fx.ag.waitState(mt.Key.ID, isTerminal)
	working := *final
	ts := final.Status.Timestamp.Add(-time.Millisecond)
	working.Status = a2a.TaskStatus{State: a2a.TaskStateWorking, Timestamp: &ts}
	for _, step := range []*a2a.Task{&working, final} {
		apply(step)
		obs := fx.svc.Observations(f)
		if len(obs) != 1 || obs[0].State != step.Status.State || obs[0].TaskID != mt.Key.ID {
			t.Fatalf("at %s: observations = %+v", step.Status.State, obs)
		}
		if _, err := other.Refresh(); err != nil {
			t.Fatal(err)
		}
		for _, svc := range []*Service{fx.svc, other} { // two dashboards see the same batch
			if err := svc.Observe(svc.Observations(f)); err != nil {
				t.Fatal(err)
			}
		}
	}
	var states []string
	for _, r := range records(t, fx.path) {
		if r.Type == recState && r.ID == d.MessageID {
			states = append(states, model.ShortState(r.From)+"->"+model.ShortState(r.To))
		}
	}
	if e, _ := fx.svc.Entry(d.MessageID); e.AgentState() != a2a.TaskStateCompleted || strings.Join(states, " ") != "auth-required->working working->completed" {
		t.Fatalf("entry ends at %s; state records %v", e.AgentState(), states)
	}
	if obs := fx.svc.Observations(f); len(obs) != 0 {
		t.Fatalf("an ended task is still followed: %+v", obs)
	}
}

// heldSender holds every Reply until released.
type heldSender struct {
	Sender
	entered chan struct{}
	release chan struct{}
}

func (h *heldSender) Reply(ctx context.Context, agent string, msg *a2a.Message) (*a2a.Task, error) {
	h.entered <- struct{}{}
	<-h.release
	return h.Sender.Reply(ctx, agent, msg)
}

// TestLockNotHeldAcrossTheSend: while one process's reply is on the wire
// (held by the agent's side), another process decides on another prompt
// and reads the journal: the journal's lock covers the check and the
// fsynced record only.
func TestLockNotHeldAcrossTheSend(t *testing.T) {
	h := &heldSender{entered: make(chan struct{}), release: make(chan struct{})}
	fx := newFixture(t, func(o *Options) { h.Sender = o.Sender; o.Sender = h })
	first, second := fx.start(t, "ask"), fx.start(t, "ask")
	d := fx.mustPrepare(t, first, Input{Kind: KindReply, Text: "main"})
	done := make(chan Outcome)
	go func() { done <- fx.svc.Send(context.Background(), d) }()
	<-h.entered

	other := fx.open(t, "other@test")
	d2, err := other.Prepare(other.ItemFor(second), Input{Kind: KindReply, Text: "release"})
	if err != nil {
		t.Fatal(err)
	}
	if out := other.Send(context.Background(), d2); out.Result != ResultAccepted {
		t.Fatalf("a decision on another prompt while a send is under way: %s/%s %v", out.Result, out.Problem, out.Err)
	}
	if e, ok := other.Entry(d.MessageID); !ok || e.Result != ResultPending {
		t.Fatalf("the decision being sent, seen from the other process: %+v", e)
	}
	close(h.release)
	if out := <-done; out.Result != ResultAccepted {
		t.Fatalf("the held send: %s/%s %v", out.Result, out.Problem, out.Err)
	}
}

// TestTornDecisionWasNeverSent: a process dies in the middle of writing
// a decision (half the line on disk, no newline). The decision was never
// sent: the agent received nothing, since nothing is sent before the
// record is fsynced. The torn line still blocks its agent, its outcome
// unknown in its words (a cut line may also be one that was sent: see
// TestACutDecisionThatWasDeliveredIsNotCalledUnsent), until Reconcile confirms with GetTask that the agent does not
// hold its messageId; then a decision goes out once.
func TestTornDecisionWasNeverSent(t *testing.T) {
	fx := newFixture(t)
	mt := fx.start(t, "ask")
	c := startChild(t, fx, mt.Key.ID, "reply", "cli@test", envDTear+"=1")
	c.Say(t, "go")
	var ee *exec.ExitError
	if err := c.Wait(); !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the child was not killed in its write: %v", err)
	}
	if n := fx.ag.onTask(mt.Key.ID); n != 0 {
		t.Fatalf("a torn decision reached the agent %d times", n)
	}
	got, err := fx.svc.Refresh()
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Damage) != 1 || !got.Damage[0].Torn || got.Damage[0].Type != recDecision || got.Damage[0].Agent != "agent" || !got.Damage[0].Open() {
		t.Fatalf("Refresh = %+v", got)
	}
	dm := got.Damage[0]
	if !strings.Contains(dm.Words(), "unknown until GetTask settles it") || !strings.Contains(dm.Words(), fx.path) || dm.MessageID == "" {
		t.Fatalf("words: %s (%+v)", dm.Words(), dm)
	}
	if _, err := fx.svc.Prepare(fx.svc.ItemFor(mt), Input{Kind: KindReply, Text: "main"}); !errors.Is(err, ErrJournalDamaged) {
		t.Fatalf("Prepare with a torn decision on the agent: %v", err)
	}
	// Another process reading the same journal sees the same.
	if got := fx.open(t, "other@test").Blocking(); len(got) != 1 || !got[0].Torn || got[0].Line != dm.Line {
		t.Fatalf("read by another process: %+v", got)
	}
	fx.svc.Reconcile(context.Background())
	if b := fx.svc.Blocking(); len(b) != 0 {
		t.Fatalf("still blocking after Reconcile: %+v", b)
	}
	if all := fx.svc.Damage(); len(all) != 1 || !strings.Contains(all[0].AcceptNote, "not delivered") {
		t.Fatalf("the resolution: %+v", all)
	}
	d := fx.mustPrepare(t, mt, Input{Kind: KindReply, Text: "main"})
	if out := fx.svc.Send(context.Background(), d); out.Result != ResultAccepted {
		t.Fatalf("send after: %s/%s %v", out.Result, out.Problem, out.Err)
	}
	if n := fx.ag.onTask(mt.Key.ID); n != 1 {
		t.Fatalf("the agent received %d decisions", n)
	}
	// The next writer started a new line and named the torn one: a fresh
	// reader still sees one torn line, resolved.
	again := fx.open(t, "later@test")
	if all := again.Damage(); len(all) != 1 || !all[0].Torn || all[0].Open() {
		t.Fatalf("read back: %+v", all)
	}
}

// TestRefreshReportsADecisionAgainWhenItsOutcomeComes: a dashboard that
// reads the journal as soon as it is written (Watch) reads another
// process's decision while it is still being sent, then its outcome.
// Refresh reports the decision both times, as it stands: the inbox's
// "answered elsewhere by …" said "being sent" for good before (it was
// reported once, when the dashboard only read the journal each second,
// by when the outcome was mostly there).
func TestRefreshReportsADecisionAgainWhenItsOutcomeComes(t *testing.T) {
	fx := newFixture(t)
	other, err := Open(Options{JournalPath: fx.path, Sender: fx.snd, Approver: "bob@test", SendTimeout: 300 * time.Millisecond,
		Agents: []Agent{{Name: "agent", URL: fx.ag.srv.URL}}})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	mt := fx.start(t, "ask")
	fx.ag.holdBefore.Store(true) // the reply is not delivered: the send times out
	d, err := other.Prepare(other.ItemFor(mt), Input{Kind: KindReply, Text: "main"})
	if err != nil {
		t.Fatal(err)
	}
	sent := make(chan Outcome, 1)
	go func() { sent <- other.Send(context.Background(), d) }()
	stand := func() (Entry, bool) {
		r, err := fx.svc.Refresh()
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range r.Decisions {
			if e.MessageID == d.MessageID {
				return e, true
			}
		}
		return Entry{}, false
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if e, ok := stand(); ok {
			if e.Result != ResultPending {
				t.Fatalf("first read: %s, want it still being sent", e.Result)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("after 10 s: the other process's decision was not reported")
		}
	}
	out := <-sent
	e, ok := stand()
	if !ok {
		t.Fatalf("the outcome (%s) came, and Refresh did not report the decision again", out.Result)
	}
	if e.Result == ResultPending || e.Result != out.Result {
		t.Fatalf("reported again as %s, want %s", e.Result, out.Result)
	}
}

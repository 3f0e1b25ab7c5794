package ui_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/charmbracelet/x/exp/teatest"

	"a2atop/a2aclient"
	"a2atop/approvals"
	"a2atop/demo"
	"a2atop/model"
	"a2atop/ui"
	"a2atop/ui/inbox"
	"a2atop/ui/internal/uitest"
	"a2atop/ui/theme"
)

// This file runs the dashboard as internal/cli wires it (the root
// following the journal, the real inbox and journal view) on the real
// demo agents, and a second approvals.Service on the same journal file
// for another process (`a2atop reply`, another dashboard).

// liveQuiet is the confirmations' quiet period in these tests.
const liveQuiet = 100 * time.Millisecond

// live is a running dashboard and the other process beside it.
type live struct {
	t       *testing.T
	df      *demo.Fleet
	journal string
	cfg     []approvals.Agent
	tm      *teatest.TestModel
	other   *approvals.Service
	otherTo *a2aclient.Manager // the other process's connection to the agents
}

// liveOptions say what the dashboard hears of the agents. watchStreams:
// every change as it happens (the watchers stream and sweep). Else the
// fleet is what GetTask said of the still tasks when the dashboard
// started, and stays so: a dashboard that has not heard yet that a task
// moved on, while another process answers it (a watcher that sweeps
// rarely still sweeps again after a failed round, which a loaded machine
// makes happen).
// pollJournal: the dashboard reads the journal on its clock, as where
// the OS gives no file-change notification; else it reads it when the
// file is written (approvals.Service.Watch), as internal/cli wires it.
type liveOptions struct {
	watchStreams bool
	pollJournal  bool
	still        []stillTask
}

// stillTask is a task of an agent.
type stillTask struct {
	agent string
	id    a2a.TaskID
}

// startLive starts the demo agents without the planner client and the
// other process's Service; the dashboard starts with dashboard().
func startLive(t *testing.T) *live {
	t.Helper()
	if testing.Short() {
		t.Skip("starts the demo fleet")
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	df, err := demo.Start(ctx, demo.Options{NoPlanner: true, Timings: demo.Timings{Step: 100 * time.Millisecond}})
	if err != nil {
		t.Fatalf("demo.Start: %v", err)
	}
	t.Cleanup(func() { df.Close() })
	lv := &live{t: t, df: df, journal: filepath.Join(t.TempDir(), "journal.jsonl")}
	var agents []a2aclient.AgentOptions
	for _, a := range df.Agents() {
		lv.cfg = append(lv.cfg, approvals.Agent{Name: a.Name, URL: a.URL})
		agents = append(agents, a2aclient.AgentOptions{Name: a.Name, URL: a.URL})
	}
	lv.otherTo = a2aclient.New(agents, a2aclient.Options{})
	lv.other = lv.open(t, lv.otherTo, "ops@other")
	return lv
}

// open opens the journal as a process of approver by does.
func (lv *live) open(t *testing.T, snd approvals.Sender, by string) *approvals.Service {
	t.Helper()
	svc, err := approvals.Open(approvals.Options{JournalPath: lv.journal, Sender: snd, Approver: by, Agents: lv.cfg,
		QuietPeriod: liveQuiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return svc
}

// dashboard starts the dashboard on the deployer and the code-reviewer.
func (lv *live) dashboard(o liveOptions) *approvals.Service {
	t := lv.t
	ctx, cancel := context.WithCancel(context.Background())
	var agents []a2aclient.AgentOptions
	fleet := model.NewFleet(model.Options{})
	for _, a := range lv.df.Agents() {
		if a.Name != demo.Deployer && a.Name != demo.CodeReviewer {
			continue
		}
		fleet.AddAgent(a.Name, a.URL)
		agents = append(agents, a2aclient.AgentOptions{Name: a.Name, URL: a.URL, Subscribe: true, SweepInterval: 100 * time.Millisecond})
	}
	mgr := a2aclient.New(agents, a2aclient.Options{})
	var events <-chan model.Event
	if o.watchStreams {
		events = mgr.Events()
		done := make(chan struct{})
		go func() { mgr.Run(ctx); close(done) }()
		t.Cleanup(func() { cancel(); <-done })
	} else {
		t.Cleanup(cancel)
		for _, st := range o.still {
			task, err := lv.otherTo.Get(ctx, st.agent, st.id, 0, true)
			if err != nil {
				t.Fatal(err)
			}
			fleet.Apply([]model.Event{{Kind: model.EventTask, Agent: st.agent, Source: model.SourceSweep, At: time.Now(), Task: task}})
		}
	}
	svc := lv.open(t, mgr, "ops@dash")
	var changes <-chan struct{}
	if !o.pollJournal {
		ch, stop, ok := svc.Watch()
		if !ok {
			t.Fatal("Watch: no file-change notification for a journal file")
		}
		t.Cleanup(stop)
		changes = ch
	}
	views := inbox.Options{Sort: model.SortAge}
	m := ui.New(ui.Options{Fleet: fleet, Events: events, Backend: mgr, Approvals: svc, JournalChanges: changes,
		Inbox: inbox.InboxFactory(svc, views), Journal: inbox.JournalFactory(svc, views),
		Theme: theme.New(theme.Options{Mode: theme.ModeDark}), QuietPeriod: liveQuiet})
	lv.tm = teatest.NewTestModel(t, m, teatest.WithInitialTermSize(160, 45))
	t.Cleanup(func() { _ = lv.tm.Quit() })
	return svc
}

// press sends keys to the dashboard.
func (lv *live) press(keys ...string) {
	for _, k := range keys {
		lv.tm.Send(uitest.Key(k))
	}
}

// see waits until the dashboard has drawn every one of want since the
// last see (the terminal is written line by line, only the lines that
// changed), and fails the test with what it drew when it does not.
func (lv *live) see(what string, want ...string) {
	lv.t.Helper()
	teatest.WaitFor(lv.t, lv.tm.Output(), func(b []byte) bool {
		for _, w := range want {
			if !bytes.Contains(b, []byte(w)) {
				return false
			}
		}
		return true
	}, teatest.WithDuration(15*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	lv.t.Logf("%s: saw %q", what, want)
}

// deploy starts a staging deploy on the deployer, as the other process,
// and returns it once it asks for approval.
func (lv *live) deploy(commit string) *a2a.Task {
	return lv.start(demo.Deployer, "deploy "+commit+" to staging", a2a.TaskStateAuthRequired)
}

// start sends text to agent as a new task, as the other process, and
// returns the task once it is in state.
func (lv *live) start(agent, text string, state a2a.TaskState) *a2a.Task {
	lv.t.Helper()
	task, err := lv.otherTo.Reply(context.Background(), agent, a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text)))
	if err != nil || task == nil {
		lv.t.Fatalf("starting a task on %s: %v", agent, err)
	}
	return lv.awaitOn(agent, task.ID, state)
}

// await polls the deployer until the task is in state.
func (lv *live) await(id a2a.TaskID, state a2a.TaskState) *a2a.Task {
	lv.t.Helper()
	return lv.awaitOn(demo.Deployer, id, state)
}

func (lv *live) awaitOn(agent string, id a2a.TaskID, state a2a.TaskState) *a2a.Task {
	lv.t.Helper()
	for range 500 {
		task, err := lv.otherTo.Get(context.Background(), agent, id, 0, false)
		if err == nil && task.Status.State == state {
			return task
		}
		time.Sleep(10 * time.Millisecond)
	}
	lv.t.Fatalf("%s task %s never reached %s", agent, id, state)
	return nil
}

// decideElsewhere approves the deploy as the other process does (`a2atop
// reply deployer ID --approve`): a decision journaled, then sent.
func (lv *live) decideElsewhere(task *a2a.Task) approvals.Outcome {
	lv.t.Helper()
	return lv.answerElsewhere(demo.Deployer, task, approvals.Input{Kind: approvals.KindApprove})
}

// answerElsewhere sends in to the agent's task as the other process.
func (lv *live) answerElsewhere(agent string, task *a2a.Task, in approvals.Input) approvals.Outcome {
	lv.t.Helper()
	st := model.NormalizeState(task.Status.State)
	mt := &model.Task{Key: model.TaskKey{Agent: agent, ID: task.ID}, Snapshot: task, State: st, Class: model.ClassOf(st)}
	d, err := lv.other.Prepare(lv.other.ItemFor(mt), in)
	if err != nil {
		lv.t.Fatal(err)
	}
	out := lv.other.Send(context.Background(), d)
	if out.Result != approvals.ResultAccepted {
		lv.t.Fatalf("the other process's %s: %s %v", in.Kind, out.Result, out.Err)
	}
	return out
}

// decisionsOn counts the decisions the journal file holds on a task, as
// a process that opens it now reads them.
func (lv *live) decisionsOn(id a2a.TaskID) int {
	svc, err := approvals.Open(approvals.Options{JournalPath: lv.journal, Agents: lv.cfg, ReadOnly: true})
	if err != nil {
		lv.t.Fatal(err)
	}
	defer svc.Close()
	n := 0
	for _, e := range svc.Journal() {
		if !e.Observed() && e.TaskID == id {
			n++
		}
	}
	return n
}

// TestADecisionMadeElsewhereShowsInTheJournalView: the dashboard runs;
// another process approves two deploys it shows, one after the other.
// The journal view (4) has each decision within a tick or two, with who
// made it, without a restart. It used to show them only after a restart:
// nothing read what other processes appended (the start-up reconcile on
// the first tick reads the file once, so the first decision may show
// through it; the second cannot).
// The dashboard reads the journal when the file is written, and no
// longer on its clock: the decisions show only through the notification.
func TestADecisionMadeElsewhereShowsInTheJournalView(t *testing.T) {
	decisionsElsewhere(t, false)
}

// TestADecisionMadeElsewhereShowsWithoutNotification: the same, with the
// journal read on the clock (where the OS offers no notification).
func TestADecisionMadeElsewhereShowsWithoutNotification(t *testing.T) {
	decisionsElsewhere(t, true)
}

func decisionsElsewhere(t *testing.T, poll bool) {
	lv := startLive(t)
	first, second := lv.deploy("9f3c2e1"), lv.deploy("0ddba11")
	lv.dashboard(liveOptions{pollJournal: poll, still: []stillTask{{demo.Deployer, first.ID}, {demo.Deployer, second.ID}}})
	lv.press("4")
	lv.see("the journal view", "Journal", "No decisions yet")
	for _, task := range []*a2a.Task{first, second} {
		lv.decideElsewhere(task)
		lv.see("the decision made elsewhere", "approve   deployer · "+model.ShortID(task.ID)+"  by ops@other")
	}
}

// TestAJournalLineKeepsTheTaskLaterStates: a deploy approved from the
// dashboard goes on working, then completes; its journal line says so.
// It used to stay at "auth-required → working": only the state a task
// left the inbox for was recorded.
func TestAJournalLineKeepsTheTaskLaterStates(t *testing.T) {
	lv := startLive(t)
	task := lv.deploy("7e1d2c3")
	lv.dashboard(liveOptions{watchStreams: true})
	lv.press("2")
	lv.see("the inbox", "approve deploy of 7e1d2c3 to staging?")
	lv.press("a")
	lv.see("the confirmation", "Approve this request?", "y: send")
	lv.press("y")
	lv.see("the approve", "the agent took the message")
	lv.await(task.ID, a2a.TaskStateCompleted)
	lv.press("4")
	lv.see("the journal line", "→ completed (fleet")
	if n := lv.decisionsOn(task.ID); n != 1 {
		t.Fatalf("the journal holds %d decisions on the task, want 1", n)
	}
	if _, err := lv.other.Refresh(); err != nil {
		t.Fatal(err)
	}
	var states []string
	for _, e := range lv.other.Journal() {
		if e.TaskID == task.ID {
			for _, c := range e.States {
				states = append(states, model.ShortState(c.To))
			}
		}
	}
	if len(states) == 0 || states[len(states)-1] != "completed" || strings.Count(strings.Join(states, " "), "completed") != 1 {
		t.Fatalf("the task's states in the journal: %v; want them to end with one completed", states)
	}
}

// TestAnOpenConfirmationSaysItWasAnsweredElsewhere: the dashboard's
// confirmation of an approve is open when another process approves the
// same prompt. The confirmation says who answered at once, y sends
// nothing and the footer says why; the inbox row says it too. It used to
// say nothing: y went to the service, which refused.
func TestAnOpenConfirmationSaysItWasAnsweredElsewhere(t *testing.T) {
	lv := startLive(t)
	task := lv.deploy("9f3c2e1")
	lv.dashboard(liveOptions{still: []stillTask{{demo.Deployer, task.ID}}}) // the task stays in the inbox
	lv.press("2")
	lv.see("the inbox", "approve deploy of 9f3c2e1 to staging?")
	lv.press("a")
	lv.see("the confirmation", "Approve this request?", "y: send")
	lv.decideElsewhere(task)
	lv.see("the confirmation answered elsewhere", "answered elsewhere by ops@other at", "nothing is sent from here")
	lv.press("y")
	lv.see("y refused", "not sent: answered elsewhere by ops@other")
	lv.press("n")
	lv.see("the row", "[answered elsewhere by ops@other at")
	if n := lv.decisionsOn(task.ID); n != 1 {
		t.Fatalf("the journal holds %d decisions on the task, want the other process's alone", n)
	}
}

// TestAReplyBeingWrittenSaysItWasAnsweredElsewhere: a reply is being
// typed in the dashboard when another process answers the question. The
// editor says who answered, keeps the text and sends nothing; once the
// task goes on and leaves the inbox, the footer says who answered instead
// of a bare "left the inbox". It used to drop the draft with no word of
// the other answer.
func TestAReplyBeingWrittenSaysItWasAnsweredElsewhere(t *testing.T) {
	lv := startLive(t)
	task := lv.start(demo.CodeReviewer, "review PR #42", a2a.TaskStateInputRequired)
	lv.dashboard(liveOptions{watchStreams: true})
	lv.press("2")
	lv.see("the inbox", demo.BranchQuestion)
	lv.press("r", "r", "e", "l", "e", "a", "s", "e")
	lv.see("the draft", "release")
	lv.answerElsewhere(demo.CodeReviewer, task, approvals.Input{Kind: approvals.KindReply, Text: "main"})
	lv.see("the answer elsewhere", model.ShortID(task.ID)+": answered elsewhere by ops@other at", ": replied; now ", " — draft dropped, nothing was sent")
	if n := lv.decisionsOn(task.ID); n != 1 {
		t.Fatalf("the journal holds %d decisions on the task, want the other process's alone", n)
	}
}

// TestTheReplyEditorSaysItWasAnsweredElsewhere: while the task stays in
// the inbox (the dashboard has not heard it moved on), the open editor
// says who answered, keeps the text typed, and ctrl+s sends nothing.
func TestTheReplyEditorSaysItWasAnsweredElsewhere(t *testing.T) {
	lv := startLive(t)
	task := lv.start(demo.CodeReviewer, "review PR #43", a2a.TaskStateInputRequired)
	lv.dashboard(liveOptions{still: []stillTask{{demo.CodeReviewer, task.ID}}})
	lv.press("2")
	lv.see("the inbox", demo.BranchQuestion)
	lv.press("r", "r", "e", "l", "e", "a", "s", "e")
	lv.see("the draft", "release")
	lv.answerElsewhere(demo.CodeReviewer, task, approvals.Input{Kind: approvals.KindReply, Text: "main"})
	lv.see("the editor answered elsewhere", "answered elsewhere by ops@other at", "nothing is sent from here; what you typed is kept")
	lv.press("ctrl+s")
	lv.see("ctrl+s refused", "not sent: answered elsewhere by ops@other")
	if err := lv.tm.Quit(); err != nil {
		t.Fatal(err)
	}
	if v := lv.tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).View(); !strings.Contains(v, "│ release") {
		t.Fatalf("the draft is not in the editor any more:\n%s", v)
	}
	if n := lv.decisionsOn(task.ID); n != 1 {
		t.Fatalf("the journal holds %d decisions on the task, want the other process's alone", n)
	}
}

// TestAnEntryMadeAgainstAURLShowsTheNameTheAgentHasNow: `a2atop reply
// http://127.0.0.1:PORT …` approved a deploy, naming the agent after its
// host:port; the dashboard's config names that URL deployer. The journal
// view shows the entry under deployer, says what it was recorded as, and
// enter opens the task in the fleet. It used to show the URL's name and
// "this task is not in the fleet".
func TestAnEntryMadeAgainstAURLShowsTheNameTheAgentHasNow(t *testing.T) {
	lv := startLive(t)
	task := lv.deploy("5ca1ab1")
	var url string
	for _, a := range lv.df.Agents() {
		if a.Name == demo.Deployer {
			url = a.URL
		}
	}
	byURL := strings.TrimPrefix(url, "http://")
	mgr := a2aclient.New([]a2aclient.AgentOptions{{Name: byURL, URL: url}}, a2aclient.Options{})
	svc, err := approvals.Open(approvals.Options{JournalPath: lv.journal, Sender: mgr, Approver: "ops@cli",
		Agents: []approvals.Agent{{Name: byURL, URL: url}}})
	if err != nil {
		t.Fatal(err)
	}
	st := model.NormalizeState(task.Status.State)
	mt := &model.Task{Key: model.TaskKey{Agent: byURL, ID: task.ID}, Snapshot: task, State: st, Class: model.ClassOf(st)}
	d, err := svc.Prepare(svc.ItemFor(mt), approvals.Input{Kind: approvals.KindApprove})
	if err != nil {
		t.Fatal(err)
	}
	if out := svc.Send(context.Background(), d); out.Result != approvals.ResultAccepted {
		t.Fatalf("the approve by URL: %s %v", out.Result, out.Err)
	}
	svc.Close()
	lv.await(task.ID, a2a.TaskStateCompleted)
	lv.dashboard(liveOptions{still: []stillTask{{demo.Deployer, task.ID}}})
	lv.press("4")
	lv.see("the entry", "approve   deployer · "+model.ShortID(task.ID)+" (recorded as "+byURL+")  by ops@cli",
		"identity: "+url+", now deployer")
	lv.press("enter")
	lv.see("the task", "Deployed 5ca1ab1 to staging.")
	if err := lv.tm.Quit(); err != nil {
		t.Fatal(err)
	}
	if v := lv.tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).View(); strings.Contains(v, "not in the fleet") {
		t.Fatalf("the entry's task is not found:\n%s", v)
	}
}

package ui_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/charmbracelet/x/exp/teatest"

	"a2atop/a2aclient"
	"a2atop/approvals"
	"a2atop/model"
	"a2atop/ui"
	"a2atop/ui/inbox"
	"a2atop/ui/internal/uitest"
	"a2atop/ui/theme"
)

// gateAgent is a real A2A server (the SDK's a2asrv, JSON-RPC, on
// loopback) whose tasks wait in AUTH_REQUIRED. A message on a task
// started with "deploy" is handed to its waiting executor (approve:
// COMPLETED, deny: FAILED); a task started with "oob" behaves as Go SDK
// agents do, refusing any message while it waits (-32603, "already in
// progress"). It counts, on its side, the SendMessage requests that
// name each task.
type gateAgent struct {
	srv     *httptest.Server
	handler a2asrv.RequestHandler

	mu       sync.Mutex
	perTask  map[a2a.TaskID]int
	messages []*a2a.Message // every SendMessage's message, in order
	waiting  map[a2a.TaskID]chan *a2a.Message
}

func startGateAgent(t *testing.T) *gateAgent {
	t.Helper()
	ag := &gateAgent{perTask: map[a2a.TaskID]int{}, waiting: map[a2a.TaskID]chan *a2a.Message{}}
	ag.handler = a2asrv.NewHandler(gateExecutor{ag}, a2asrv.WithCallInterceptors(gateInterceptor{ag: ag}),
		a2asrv.WithLogger(slog.New(slog.DiscardHandler)))
	mux := http.NewServeMux()
	mux.Handle("/", a2asrv.NewJSONRPCHandler(ag.handler))
	ag.srv = httptest.NewServer(mux)
	t.Cleanup(ag.srv.Close)
	card := &a2a.AgentCard{Name: "gate", Description: "waits for approvals", Version: "1",
		SupportedInterfaces: []*a2a.AgentInterface{{URL: ag.srv.URL, ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2a.Version}},
		Capabilities:        a2a.AgentCapabilities{Streaming: true}, DefaultInputModes: []string{"text"}, DefaultOutputModes: []string{"text"}}
	mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(card))
	return ag
}

// onTask is how many SendMessage requests reached the agent on task id.
func (ag *gateAgent) onTask(id a2a.TaskID) int {
	ag.mu.Lock()
	defer ag.mu.Unlock()
	return ag.perTask[id]
}

// start begins a task with text ("deploy N" or "oob N") and returns its id
// once it waits.
func (ag *gateAgent) start(t *testing.T, text string) a2a.TaskID {
	t.Helper()
	res, err := ag.handler.SendMessage(gateCtx(), &a2a.SendMessageRequest{
		Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text)),
		Config:  &a2a.SendMessageConfig{ReturnImmediately: true}})
	if err != nil {
		t.Fatalf("start %q: %v", text, err)
	}
	id := res.TaskInfo().TaskID
	for range 400 {
		if task, err := ag.handler.GetTask(gateCtx(), &a2a.GetTaskRequest{ID: id}); err == nil && task.Status.State == a2a.TaskStateAuthRequired {
			return id
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("task %q never waited", text)
	return ""
}

func gateCtx() context.Context {
	ctx, cc := a2asrv.NewCallContext(context.Background(), nil)
	cc.User = a2asrv.NewAuthenticatedUser("test", nil)
	return ctx
}

type gateInterceptor struct {
	a2asrv.PassthroughCallInterceptor
	ag *gateAgent
}

// Before counts the messages on a task and hands a decision on a
// "deploy" task to its executor, answering with the task once it moved.
func (gi gateInterceptor) Before(ctx context.Context, cc *a2asrv.CallContext, req *a2asrv.Request) (context.Context, any, error) {
	cc.User = a2asrv.NewAuthenticatedUser("test", nil)
	p, ok := req.Payload.(*a2a.SendMessageRequest)
	if ok && p.Message != nil {
		gi.ag.mu.Lock()
		gi.ag.messages = append(gi.ag.messages, p.Message)
		gi.ag.mu.Unlock()
	}
	if !ok || p.Message == nil || p.Message.TaskID == "" {
		return ctx, nil, nil
	}
	ag := gi.ag
	ag.mu.Lock()
	ag.perTask[p.Message.TaskID]++
	ch := ag.waiting[p.Message.TaskID]
	ag.mu.Unlock()
	if ch == nil {
		return ctx, nil, nil // an "oob" task: the SDK refuses it
	}
	ch <- p.Message
	for range 400 {
		task, err := ag.handler.GetTask(ctx, &a2a.GetTaskRequest{ID: p.Message.TaskID})
		if err == nil && task.Status.State.Terminal() {
			return ctx, task, nil
		}
		time.Sleep(5 * time.Millisecond)
	}
	return ctx, nil, fmt.Errorf("task %s did not finish", p.Message.TaskID)
}

type gateExecutor struct{ ag *gateAgent }

func (e gateExecutor) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		if !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
			return
		}
		text := ec.Message.Parts[0].Text()
		if strings.HasPrefix(text, "echo") {
			yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart(text))), nil)
			return
		}
		var ch chan *a2a.Message
		if strings.HasPrefix(text, "deploy") {
			ch = make(chan *a2a.Message, 1)
			e.ag.mu.Lock()
			e.ag.waiting[ec.TaskID] = ch
			e.ag.mu.Unlock()
		}
		q := a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("approve "+text+" to staging?"))
		if !yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateAuthRequired, q), nil) {
			return
		}
		var m *a2a.Message
		select {
		case m = <-ch: // nil channel for "oob": only ctx ends it
		case <-ctx.Done():
			return
		}
		if !yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, m), nil) {
			return
		}
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil), nil)
	}
}

func (gateExecutor) Cancel(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

// TestApproveTenOnThreeAgents: ten tasks waiting on three real agents are
// marked (ctrl+a) and approved with one confirmation and one y, through
// the real watchers, the approvals service and its journal. Each
// approval reaches its agent exactly once (counted on the agents' side),
// one journal decision is recorded per task, and the one the agent
// refuses is shown as refused on its own row.
func TestApproveTenOnThreeAgents(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three agents")
	}
	agents := map[string]*gateAgent{"alpha": startGateAgent(t), "beta": startGateAgent(t), "gamma": startGateAgent(t)}
	tasks := map[string][]string{
		"alpha": {"deploy a1", "deploy a2", "deploy a3", "deploy a4"},
		"beta":  {"deploy b1", "deploy b2", "deploy b3"},
		"gamma": {"deploy c1", "deploy c2", "oob c3"},
	}
	ids := map[model.TaskKey]string{}
	var refused model.TaskKey
	for name, texts := range tasks {
		for _, text := range texts {
			k := model.TaskKey{Agent: name, ID: agents[name].start(t, text)}
			ids[k] = text
			if strings.HasPrefix(text, "oob") {
				refused = k
			}
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	fleet := model.NewFleet(model.Options{})
	var opts []a2aclient.AgentOptions
	for _, name := range []string{"alpha", "beta", "gamma"} {
		fleet.AddAgent(name, agents[name].srv.URL)
		opts = append(opts, a2aclient.AgentOptions{Name: name, URL: agents[name].srv.URL, Binding: "auto", Protocol: "auto",
			Subscribe: true, SweepInterval: 100 * time.Millisecond})
	}
	mgr := a2aclient.New(opts, a2aclient.Options{})
	done := make(chan struct{})
	go func() { mgr.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	svc, err := approvals.Open(approvals.Options{JournalPath: filepath.Join(t.TempDir(), "journal.jsonl"), Sender: mgr,
		Approver: "ops@host", QuietPeriod: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	views := inbox.Options{Sort: model.SortAge}
	m := ui.New(ui.Options{Fleet: fleet, Events: mgr.Events(), Backend: mgr, Output: io.Discard,
		Theme: theme.New(theme.Options{Mode: theme.ModeDark}), Inbox: inbox.InboxFactory(svc, views),
		Journal: inbox.JournalFactory(svc, views), QuietPeriod: 100 * time.Millisecond})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(160, 50))
	out := tm.Output()
	wait := func(what string, want ...string) {
		t.Helper()
		teatest.WaitFor(t, out, func(b []byte) bool {
			for _, w := range want {
				if !bytes.Contains(b, []byte(w)) {
					return false
				}
			}
			return true
		}, teatest.WithDuration(20*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
		t.Logf("%s: saw %v", what, want)
	}
	wait("the tasks", "interrupted 10")
	tm.Send(key("2"))
	wait("the inbox", "10 waiting")
	tm.Send(key("*"))
	tm.Send(key("a"))
	wait("one confirmation", "Approve these 10 requests?", "y: send them all")
	tm.Send(key("y"))
	wait("the outcomes", "9 sent", "1 refused")

	for k := range ids {
		if n := agents[k.Agent].onTask(k.ID); n != 1 {
			t.Errorf("%s %s got %d messages, want exactly 1", k.Agent, ids[k], n)
		}
	}
	decisions := map[a2a.TaskID]int{}
	for _, e := range svc.Journal() {
		if e.Kind == approvals.KindApprove {
			decisions[e.TaskID]++
		}
	}
	if len(decisions) != 10 {
		t.Errorf("%d tasks have an approve in the journal, want 10", len(decisions))
	}
	for id, n := range decisions {
		if n != 1 {
			t.Errorf("task %s has %d approve decisions, want 1", id, n)
		}
	}
	for _, e := range svc.Journal() {
		if e.TaskID == refused.ID && e.Kind == approvals.KindApprove && e.Result != approvals.ResultRefused {
			t.Errorf("the approval of the out-of-band task is %s in the journal, want refused", e.Result)
		}
	}
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*ui.Model).View()
	row := ""
	for _, l := range strings.Split(final, "\n") {
		if strings.Contains(l, model.ShortID(refused.ID)) {
			row = l
		}
	}
	if !strings.Contains(row, "refused") {
		t.Fatalf("the refused task's row does not say refused: %q\n%s", row, final)
	}
}

// received is what the agent got, in order.
func (ag *gateAgent) received() []*a2a.Message {
	ag.mu.Lock()
	defer ag.mu.Unlock()
	return append([]*a2a.Message(nil), ag.messages...)
}

// TestNewMessageAndFollowUpReachTheAgent: n writes a message to an agent
// chosen from the fleet, which starts a new task there (no taskId, its
// own context) and opens it; f on that task once it ended sends a
// follow-up in its context naming it in referenceTaskIds. Both reach the
// real agent once, and both are journaled.
func TestNewMessageAndFollowUpReachTheAgent(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an agent")
	}
	ag := startGateAgent(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	fleet := model.NewFleet(model.Options{})
	fleet.AddAgent("echo", ag.srv.URL)
	mgr := a2aclient.New([]a2aclient.AgentOptions{{Name: "echo", URL: ag.srv.URL, Binding: "auto", Protocol: "auto",
		Subscribe: true, SweepInterval: 100 * time.Millisecond}}, a2aclient.Options{})
	done := make(chan struct{})
	go func() { mgr.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	svc, err := approvals.Open(approvals.Options{JournalPath: filepath.Join(t.TempDir(), "journal.jsonl"), Sender: mgr,
		Approver: "ops@host", QuietPeriod: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	views := inbox.Options{Sort: model.SortAge}
	m := ui.New(ui.Options{Fleet: fleet, Events: mgr.Events(), Backend: mgr, Output: io.Discard,
		Theme: theme.New(theme.Options{Mode: theme.ModeDark}), Inbox: inbox.InboxFactory(svc, views),
		Journal: inbox.JournalFactory(svc, views), Compose: inbox.ComposeFactory(svc, views), QuietPeriod: 100 * time.Millisecond})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(140, 40))
	out := tm.Output()
	wait := func(what string, want ...string) {
		t.Helper()
		teatest.WaitFor(t, out, func(b []byte) bool {
			for _, w := range want {
				if !bytes.Contains(b, []byte(w)) {
					return false
				}
			}
			return true
		}, teatest.WithDuration(20*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
		t.Logf("%s: saw %v", what, want)
	}
	typeIn := func(keys ...string) {
		for _, k := range keys {
			tm.Send(uitest.Key(k))
		}
	}
	wait("the agent", "1 up")
	typeIn("n")
	wait("the agents to choose from", "Choose the agent")
	typeIn("enter", "e", "c", "h", "o", "space", "o", "n", "e", "ctrl+s")
	wait("the confirmation", "Send this message to echo?", "y: send")
	typeIn("y")
	wait("the new task, ended", "Status message", "echo one", "completed")
	msgs := ag.received()
	if len(msgs) != 1 || msgs[0].TaskID != "" || msgs[0].Parts[0].Text() != "echo one" {
		t.Fatalf("the agent got %v, want one new message \"echo one\"", msgs)
	}
	// The task it started, as the agent holds it (the fleet is the
	// program's, read on its goroutine only).
	var task *a2a.Task
	for _, e := range svc.Journal() {
		if e.Kind == approvals.KindMessage && e.TaskID != "" {
			if task, err = ag.handler.GetTask(gateCtx(), &a2a.GetTaskRequest{ID: e.TaskID}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if task == nil {
		t.Fatal("the journal does not name the task the message started")
	}
	typeIn("f")
	wait("the follow-up", "Follow-up of echo")
	typeIn("e", "c", "h", "o", "space", "t", "w", "o", "ctrl+s")
	wait("its confirmation", "Send this follow-up?", "y: send")
	typeIn("y")
	wait("the follow-up's task", "echo two")
	for deadline := time.Now().Add(10 * time.Second); len(ag.received()) < 2 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	msgs = ag.received()
	if len(msgs) != 2 {
		t.Fatalf("the agent got %d messages, want 2", len(msgs))
	}
	f := msgs[1]
	if f.TaskID != "" || f.ContextID != task.ContextID || len(f.ReferenceTasks) != 1 || f.ReferenceTasks[0] != task.ID {
		t.Fatalf("the follow-up went with taskId %q contextId %q refs %v; want a new task in %q naming %s",
			f.TaskID, f.ContextID, f.ReferenceTasks, task.ContextID, task.ID)
	}
	kinds := map[approvals.Kind]int{}
	for _, e := range svc.Journal() {
		kinds[e.Kind]++
	}
	if kinds[approvals.KindMessage] != 1 || kinds[approvals.KindFollowUp] != 1 {
		t.Fatalf("the journal holds %v, want one message and one follow-up", kinds)
	}
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
}

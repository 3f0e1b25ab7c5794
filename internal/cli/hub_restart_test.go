package cli

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"iter"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"a2atop/approvals"
	"a2atop/demo"
	"a2atop/model"
)

// holdAgent is a real A2A server (a2asrv, JSON-RPC) whose "deploy" tasks
// wait in AUTH_REQUIRED for a decision by message, that counts the
// messages each task receives, and that can hold the answer to a
// SendMessage it has taken (the message delivered, the answer never
// sent), as an agent does when the network fails at the worst moment.
type holdAgent struct {
	srv     *httptest.Server
	handler a2asrv.RequestHandler
	hold    atomic.Bool

	mu      sync.Mutex
	perTask map[a2a.TaskID]int
	waiting map[a2a.TaskID]chan *a2a.Message
}

func startHoldAgent(t *testing.T) *holdAgent {
	t.Helper()
	ag := &holdAgent{perTask: map[a2a.TaskID]int{}, waiting: map[a2a.TaskID]chan *a2a.Message{}}
	ag.handler = a2asrv.NewHandler(holdExec{ag}, a2asrv.WithCallInterceptors(holdInterceptor{ag: ag}),
		a2asrv.WithLogger(slog.New(slog.DiscardHandler)))
	ag.srv = httptest.NewUnstartedServer(nil)
	url := "http://" + ag.srv.Listener.Addr().String()
	card := &a2a.AgentCard{Name: "deployer", Description: "deploys after an approval", Version: "1",
		SupportedInterfaces: []*a2a.AgentInterface{{URL: url, ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2a.Version}},
		Capabilities:        a2a.AgentCapabilities{Streaming: true},
		DefaultInputModes:   []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"}}
	mux := http.NewServeMux()
	mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(card))
	mux.Handle("/", ag.holding(a2asrv.NewJSONRPCHandler(ag.handler)))
	ag.srv.Config.Handler = mux
	ag.srv.Start()
	t.Cleanup(func() { ag.srv.CloseClientConnections(); ag.srv.Close() })
	return ag
}

// holding delivers a SendMessage and then, while hold is set, keeps its
// answer until the caller goes away.
func (ag *holdAgent) holding(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if !ag.hold.Load() || !bytes.Contains(body, []byte(`"SendMessage"`)) {
			next.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(httptest.NewRecorder(), r.WithContext(context.WithoutCancel(r.Context())))
		<-r.Context().Done()
	})
}

func (ag *holdAgent) received(id a2a.TaskID) int {
	ag.mu.Lock()
	defer ag.mu.Unlock()
	return ag.perTask[id]
}

func holdCtx() context.Context {
	ctx, cc := a2asrv.NewCallContext(context.Background(), nil)
	cc.User = a2asrv.NewAuthenticatedUser("test", nil)
	return ctx
}

// deploy starts a deploy and waits until it asks for the approval.
func (ag *holdAgent) deploy(t *testing.T) a2a.TaskID {
	t.Helper()
	res, err := ag.handler.SendMessage(holdCtx(), &a2a.SendMessageRequest{
		Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("deploy")), Config: &a2a.SendMessageConfig{ReturnImmediately: true}})
	if err != nil {
		t.Fatal(err)
	}
	id := res.(*a2a.Task).ID
	ag.wait(t, id, a2a.TaskStateAuthRequired)
	return id
}

func (ag *holdAgent) wait(t *testing.T, id a2a.TaskID, st a2a.TaskState) {
	t.Helper()
	eventually(t, "task "+string(id)+" "+string(st), func() bool {
		task, err := ag.handler.GetTask(holdCtx(), &a2a.GetTaskRequest{ID: id})
		return err == nil && task.Status.State == st
	})
}

type holdInterceptor struct {
	a2asrv.PassthroughCallInterceptor
	ag *holdAgent
}

func (hi holdInterceptor) Before(ctx context.Context, cc *a2asrv.CallContext, req *a2asrv.Request) (context.Context, any, error) {
	cc.User = a2asrv.NewAuthenticatedUser("test", nil)
	p, ok := req.Payload.(*a2a.SendMessageRequest)
	if !ok || p.Message == nil || p.Message.TaskID == "" {
		return ctx, nil, nil
	}
	ag := hi.ag
	ag.mu.Lock()
	ag.perTask[p.Message.TaskID]++
	ch := ag.waiting[p.Message.TaskID]
	delete(ag.waiting, p.Message.TaskID)
	ag.mu.Unlock()
	if ch == nil {
		return ctx, nil, nil // the SDK refuses it: the task is not waiting for a message
	}
	ch <- p.Message
	for range 400 {
		task, err := ag.handler.GetTask(ctx, &a2a.GetTaskRequest{ID: p.Message.TaskID})
		if err == nil && task.Status.State == a2a.TaskStateCompleted {
			return ctx, task, nil
		}
		time.Sleep(5 * time.Millisecond)
	}
	return ctx, nil, nil
}

type holdExec struct{ ag *holdAgent }

func (e holdExec) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		if !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
			return
		}
		ch := make(chan *a2a.Message, 1)
		e.ag.mu.Lock()
		e.ag.waiting[ec.TaskID] = ch
		e.ag.mu.Unlock()
		q := a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("approve deploy of 9f3c2e1 to production?"))
		if !yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateAuthRequired, q), nil) {
			return
		}
		var m *a2a.Message
		select {
		case m = <-ch:
		case <-ctx.Done():
			return
		}
		if yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, m), nil) { // the decision stays in the history
			yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil), nil)
		}
	}
}

func (holdExec) Cancel(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

// envServeChild carries the arguments of TestServeChild's `a2atop serve`.
const envServeChild = "A2ATOP_TEST_SERVE_CHILD"

// TestServeChild is the hub of TestHubKilledAndRestarted: `a2atop serve`
// with the arguments its parent gives, in a process of its own, until
// SIGTERM (or SIGKILL). It does nothing unless a parent started it.
func TestServeChild(t *testing.T) {
	args := os.Getenv(envServeChild)
	if args == "" {
		t.Skip("runs only as the hub process of TestHubKilledAndRestarted")
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	os.Exit(run(ctx, strings.Split(args, "\x1f"), Streams{Out: os.Stdout, Err: os.Stderr}))
}

// hubProcess is one run of `a2atop serve` as a process.
type hubProcess struct {
	cmd *exec.Cmd
}

func startHubProcess(t *testing.T, args ...string) *hubProcess {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestServeChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), envServeChild+"="+strings.Join(append([]string{"serve"}, args...), "\x1f"))
	var stderr syncBuffer
	cmd.Stderr = &stderr
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the hub process's stderr:\n%s", stderr.String())
		}
	})
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &hubProcess{cmd: cmd}
	t.Cleanup(p.kill)
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if hubLine.MatchString(sc.Text()) {
			go func() { _, _ = io.Copy(io.Discard, out) }()
			return p
		}
	}
	t.Fatalf("the hub process never said where it listens")
	return nil
}

// kill ends the hub with SIGKILL: no shutdown, no last write.
func (p *hubProcess) kill() {
	if p.cmd.ProcessState == nil {
		_ = p.cmd.Process.Kill()
		_ = p.cmd.Wait()
	}
}

func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestHubKilledAndRestarted: the hub process is killed (SIGKILL) while a
// decision is in flight (the agent took the message, its answer never
// came); the dashboards keep the last picture and mark the agent stale;
// a task starts while the hub is down; the hub is started again on the
// same journal: the dashboards reconnect and catch up, their fleets
// equal the hub's, and the decision in flight is reconciled (accepted:
// the agent holds its messageId), never sent twice.
func TestHubKilledAndRestarted(t *testing.T) {
	dir := isolate(t)
	ag := startHoldAgent(t)
	cfg := writeHubConfig(t, dir, []demo.Agent{{Name: "deployer", URL: ag.srv.URL}}, 200*time.Millisecond)
	addr := freePort(t)
	h1 := startHubProcess(t, "--config", cfg, "--listen", addr)
	url := "http://" + addr
	d1, d2 := attachHeadless(t, url, "alice"), attachHeadless(t, url, "bob")

	first := ag.deploy(t)
	k := model.TaskKey{Agent: "deployer", ID: first}
	for _, d := range []*headless{d1, d2} {
		eventually(t, "the deploy on a dashboard", func() bool { st, _ := d.task(k); return st == a2a.TaskStateAuthRequired })
	}
	var dec *approvals.Decision
	d1.hf.mu.Lock()
	it, _ := d1.svc.ItemOf(d1.hf.fleet, k)
	dec, err := d1.svc.Prepare(it, approvals.Input{Kind: approvals.KindApprove})
	d1.hf.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	ag.hold.Store(true)
	sent := make(chan approvals.Outcome, 1)
	go func() { sent <- d1.svc.Send(context.Background(), dec) }()
	eventually(t, "the agent takes the approval", func() bool { return ag.received(first) == 1 })
	h1.kill()
	out := <-sent
	if out.Result != approvals.ResultUnknown || out.Problem != approvals.ProblemHubNoAnswer {
		t.Errorf("the send the hub never answered: %s (%v), want unknown: the hub stopped answering", out.Words(), out.Err)
	}
	eventually(t, "the agent marked stale while the hub is down", func() bool { return d2.health("deployer") == model.HealthUnreachable })
	if _, ok := d2.task(k); !ok {
		t.Error("the last picture lost the deploy while the hub was down")
	}
	ag.hold.Store(false)
	second := ag.deploy(t) // while the hub is down

	startHubProcess(t, "--config", cfg, "--listen", addr)
	for _, d := range []*headless{d1, d2} {
		eventually(t, "the decision in flight reconciled on a dashboard", func() bool {
			e, ok := d.svc.Entry(dec.MessageID)
			return ok && e.Result == approvals.ResultAccepted
		})
		eventually(t, "the deploy started while the hub was down", func() bool {
			st, _ := d.task(model.TaskKey{Agent: "deployer", ID: second})
			return st == a2a.TaskStateAuthRequired
		})
	}
	fresh := attachHeadless(t, url, "bob")
	<-fresh.cl.Synced()
	for _, d := range []*headless{d1, d2} {
		eventually(t, "a dashboard's fleet equals the hub's", func() bool { return d.sig() == fresh.sig() })
	}
	if n := ag.received(first); n != 1 {
		t.Errorf("the agent received %d messages on the deploy decided while the hub died, want 1", n)
	}
	// The hub's journal: one decision, settled by the restarted hub's
	// reconcile (GetTask), not by a second send.
	b, err := os.ReadFile(filepath.Join(dir, "hub-journal.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var decisions, reconciled int
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.Contains(l, dec.MessageID) {
			continue
		}
		if strings.Contains(l, `"type":"decision"`) {
			decisions++
		}
		if strings.Contains(l, `"type":"outcome"`) && strings.Contains(l, `"via":"reconcile"`) && strings.Contains(l, `"result":"accepted"`) {
			reconciled++
		}
	}
	if decisions != 1 || reconciled != 1 {
		t.Errorf("the journal holds %d decision records and %d reconciled outcomes for it, want 1 and 1:\n%s", decisions, reconciled, b)
	}
	if st, _ := d1.task(k); st != a2a.TaskStateCompleted {
		t.Errorf("the approved deploy is %s on the dashboard", st)
	}
}

package hub_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/a2aclient"
	"a2atop/approvals"
	"a2atop/hub"
	"a2atop/internal/agenttest"
	"a2atop/model"
)

// Environment of TestDiesMidSendChild.
const (
	envDies        = "A2ATOP_HUB_DIES_JOURNAL"
	envDiesURL     = "A2ATOP_HUB_DIES_URL"
	envDiesTask    = "A2ATOP_HUB_DIES_TASK"
	envDiesTimeout = "A2ATOP_HUB_DIES_SEND_TIMEOUT"
)

// dyingSender kills its own process (SIGKILL: no deferred code) when a
// reply is about to leave: the decision is journaled pending, and its
// writer is gone.
type dyingSender struct{ *a2aclient.Manager }

func (dyingSender) Reply(context.Context, string, *a2a.Message) (*a2a.Task, error) {
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {}
}

// TestDiesMidSendChild is an a2atop process on the hub's journal that
// is killed while it sends a reply: the one of
// TestDecisionOfADeadWriterIsSettled. It does nothing unless that test
// started it.
func TestDiesMidSendChild(t *testing.T) {
	journal := os.Getenv(envDies)
	if journal == "" {
		t.Skip("runs only as the child of TestDecisionOfADeadWriterIsSettled")
	}
	timeout, _ := time.ParseDuration(os.Getenv(envDiesTimeout))
	mgr := a2aclient.New([]a2aclient.AgentOptions{{Name: "agent", URL: os.Getenv(envDiesURL)}}, a2aclient.Options{})
	svc, err := approvals.Open(approvals.Options{JournalPath: journal, Sender: dyingSender{mgr}, Approver: "ops@elsewhere", SendTimeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	task, err := mgr.Get(context.Background(), "agent", a2a.TaskID(os.Getenv(envDiesTask)), 0, false)
	if err != nil {
		t.Fatal(err)
	}
	f := model.NewFleet(model.Options{})
	f.AddAgent("agent", os.Getenv(envDiesURL))
	f.Apply([]model.Event{{Kind: model.EventTask, Agent: "agent", Task: task, At: time.Now()}})
	it, ok := svc.ItemOf(f, model.TaskKey{Agent: "agent", ID: task.ID})
	if !ok {
		t.Fatal("the task is not in the inbox")
	}
	d, err := svc.Prepare(it, approvals.Input{Kind: approvals.KindReply, Text: "main"})
	if err != nil {
		t.Fatal(err)
	}
	svc.Send(context.Background(), d)
	t.Fatal("the child survived its send")
}

// dieMidSend runs TestDiesMidSendChild on journal for task and returns
// once the child is dead: reaped when reap, a zombie (exited, not
// waited for) otherwise.
func dieMidSend(t *testing.T, journal string, ag *agenttest.Agent, task a2a.TaskID, sendTimeout time.Duration, reap bool) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestDiesMidSendChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), envDies+"="+journal, envDiesURL+"="+ag.URL, envDiesTask+"="+string(task),
		envDiesTimeout+"="+sendTimeout.String())
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	if reap {
		if err := cmd.Wait(); err == nil {
			t.Fatal("the child ended without being killed")
		}
		return pid
	}
	for end := time.Now().Add(60 * time.Second); procState(pid) != "Z"; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("the child never became a zombie (state %q)", procState(pid))
		}
	}
	return pid
}

// procState is the state letter of /proc/PID/stat, "" without one.
func procState(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if i := bytes.LastIndexByte(b, ')'); err == nil && i >= 0 && i+2 < len(b) {
		return string(b[i+2])
	}
	return ""
}

// pendingOf is the decision the dead writer left in journal.
func pendingOf(t *testing.T, journal string) string {
	t.Helper()
	svc, err := approvals.Open(approvals.Options{JournalPath: journal, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	j := svc.Journal()
	if len(j) != 1 || j[0].Result != approvals.ResultPending {
		t.Fatalf("the journal after the writer died: %+v", j)
	}
	return j[0].MessageID
}

// settled waits until the hub's journal holds the decision settled, and
// then retries it through alice's dashboard, as the inbox offers: it is
// sent once.
func (fx *fixture) settled(t *testing.T, alice *dash, id string, task a2a.TaskID) {
	t.Helper()
	var e approvals.Entry
	for end := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		e, _ = fx.h.Service().Entry(id)
		if !e.Result.Open() {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("the decision of the dead writer is still %s on the hub; the logs:\n%s", e.Result, alice.logs())
		}
	}
	if e.Result != approvals.ResultNotDelivered {
		t.Fatalf("the decision of the dead writer settled as %s, want not-delivered (it never left)", e.Result)
	}
	alice.waitFor("the settled decision on alice's dashboard", func(*model.Fleet) bool {
		e, ok := alice.svc.Entry(id)
		return ok && e.Result == approvals.ResultNotDelivered
	})
	r, err := alice.svc.Retry(id)
	if err != nil {
		t.Fatal(err)
	}
	if o := alice.svc.Send(context.Background(), r); o.Result != approvals.ResultAccepted {
		t.Fatalf("alice's retry: %s (%v)", o.Words(), o.Err)
	}
	if n := fx.ag.OnTask(task); n != 1 {
		t.Errorf("the agent received %d messages, want the retry alone", n)
	}
}

// TestDecisionOfADeadWriterIsSettled: a decision whose writer died while
// sending it is settled by the hub without anyone asking (GetTask: it
// never left), so that the prompt can be decided again: when the writer
// is still a zombie at the hub's start, and when it dies after the hub
// started.
func TestDecisionOfADeadWriterIsSettled(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("tells a zombie by /proc")
	}
	t.Run("a zombie at the start", func(t *testing.T) {
		ag := agenttest.StartAgent(t)
		task := ag.Start("ask")
		journal := filepath.Join(t.TempDir(), "journal.jsonl")
		// The writer's send window (twice its timeout) outlasts the test:
		// only the start's reconcile can settle it, the timer never runs.
		pid := dieMidSend(t, journal, ag, task, time.Hour, false)
		id := pendingOf(t, journal)
		fx := newFixtureOn(t, ag, 100*time.Millisecond, func(o *hub.Options) {
			o.Journal.JournalPath, o.ReconcileEvery = journal, time.Hour
		})
		alice := fx.attach("alice")
		fx.settled(t, alice, id, task)
		if procState(pid) != "Z" {
			t.Errorf("the writer was reaped during the test (state %q): the zombie case was not tried", procState(pid))
		}
	})
	t.Run("a writer that died after the start", func(t *testing.T) {
		fx := newFixture(t, func(o *hub.Options) { o.ReconcileEvery = 200 * time.Millisecond })
		alice := fx.attach("alice")
		task := fx.ag.Start("ask")
		alice.waitFor("the question", func(f *model.Fleet) bool { return alice.inInbox(f, task) })
		dieMidSend(t, fx.journal, fx.ag, task, time.Hour, true)
		id := ""
		alice.waitFor("the dead writer's decision on the hub", func(*model.Fleet) bool {
			for _, e := range fx.h.Service().Journal() {
				id = e.MessageID
			}
			return id != ""
		})
		fx.settled(t, alice, id, task)
	})
}

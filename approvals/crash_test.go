package approvals

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// Environment of the child process in TestCrashBetweenJournalAndSend.
const (
	envCrash   = "A2ATOP_APPROVALS_CRASH" // "before" or "after" the send
	envJournal = "A2ATOP_APPROVALS_CRASH_JOURNAL"
	envURL     = "A2ATOP_APPROVALS_CRASH_URL"
	envTask    = "A2ATOP_APPROVALS_CRASH_TASK"
)

// crashSender kills its own process (SIGKILL: no deferred code, no
// flush) right before a reply leaves, or right after it was delivered
// and before the outcome could be journaled.
type crashSender struct {
	*sdkSender
	after bool
}

func (c crashSender) Reply(ctx context.Context, agent string, msg *a2a.Message) (*a2a.Task, error) {
	if !c.after {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
	if _, err := c.sdkSender.Reply(ctx, agent, msg); err != nil {
		return nil, err // not delivered: let the child fail loudly
	}
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {}
}

// TestCrashChild is the child half of TestCrashBetweenJournalAndSend; it
// does nothing unless the parent started it.
func TestCrashChild(t *testing.T) {
	mode := os.Getenv(envCrash)
	if mode == "" {
		t.Skip("runs only as the child of TestCrashBetweenJournalAndSend")
	}
	snd := newSDKSender()
	snd.add(t, "agent", os.Getenv(envURL), "")
	svc, err := Open(Options{JournalPath: os.Getenv(envJournal), Sender: crashSender{snd, mode == "after"}, Approver: "ops@test"})
	if err != nil {
		t.Fatal(err)
	}
	task, err := snd.Get(context.Background(), "agent", a2a.TaskID(os.Getenv(envTask)), 0, false)
	if err != nil {
		t.Fatal(err)
	}
	d, err := svc.Prepare(svc.ItemFor(modelTask("agent", task)), Input{Kind: KindReply, Text: "main"})
	if err != nil {
		t.Fatal(err)
	}
	svc.Send(context.Background(), d)
	t.Fatal("the child survived its send")
}

func TestCrashBetweenJournalAndSend(t *testing.T) {
	for _, mode := range []string{"before", "after"} {
		t.Run(mode, func(t *testing.T) {
			fx := newFixture(t)
			mt := fx.start(t, "ask")
			fx.svc.Close()

			cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), envCrash+"="+mode, envJournal+"="+fx.path,
				envURL+"="+fx.ag.srv.URL, envTask+"="+string(mt.Key.ID))
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("child was not killed: %v\n%s", err, out)
			}

			// The next start: the decision is in the journal, its outcome is not.
			svc, err := Open(Options{JournalPath: fx.path, Sender: fx.snd, Approver: "ops@test"})
			if err != nil {
				t.Fatal(err)
			}
			defer svc.Close()
			j := svc.Journal()
			if len(j) != 1 || j[0].Result != ResultPending || j[0].Kind != KindReply {
				t.Fatalf("journal after the crash = %+v", j)
			}
			id := j[0].MessageID
			sentBefore := fx.ag.times(id)
			if (mode == "before") != (sentBefore == 0) {
				t.Fatalf("crash %s the send, yet the agent received it %d times", mode, sentBefore)
			}

			rs := svc.Reconcile(context.Background())
			want := map[string]Result{"before": ResultNotDelivered, "after": ResultAccepted}[mode]
			if len(rs) != 1 || rs[0].Result != want {
				t.Fatalf("reconcile = %+v, want %s", rs, want)
			}
			if n := fx.ag.times(id); n != sentBefore {
				t.Fatalf("reconcile sent: %d -> %d", sentBefore, n)
			}
			if _, err := svc.Prepare(svc.ItemFor(fx.task(t, mt.Key.ID, func(a2a.TaskState) bool { return true })), Input{Kind: KindReply, Text: "main"}); mode == "before" && !errors.Is(err, ErrAlreadyDecided) {
				t.Fatalf("the same prompt was decided again without confirming: %v", err)
			}
			if mode == "before" { // the operator confirms again: same messageId
				r, err := svc.Retry(id)
				if err != nil {
					t.Fatal(err)
				}
				if out := svc.Send(context.Background(), r); out.Result != ResultAccepted {
					t.Fatalf("retry: %s %v", out.Result, out.Err)
				}
			} else if _, err := svc.Retry(id); err == nil {
				t.Fatal("an accepted decision could be retried")
			}
			if n := fx.ag.times(id); n != 1 {
				t.Fatalf("the agent received the decision %d times, want exactly 1", n)
			}
			if rs := svc.Reconcile(context.Background()); len(rs) != 0 {
				t.Fatalf("still open after reconcile: %+v", rs)
			}
		})
	}
}

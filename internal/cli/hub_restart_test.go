package cli

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/approvals"
	"a2atop/demo"
	"a2atop/internal/agenttest"
	"a2atop/model"
)

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

// TestHubKilledAndRestarted: the hub process is killed (SIGKILL) while a
// decision is in flight (the agent took the message, its answer never
// came); the dashboards keep the last picture and mark the agent stale;
// a task starts while the hub is down; the hub is started again on the
// same journal: the dashboards reconnect and catch up, their fleets
// equal the hub's, and the decision in flight is reconciled (accepted:
// the agent holds its messageId), never sent twice.
func TestHubKilledAndRestarted(t *testing.T) {
	dir := isolate(t)
	ag := agenttest.StartAgent(t)
	cfg := writeHubConfig(t, dir, []demo.Agent{{Name: "deployer", URL: ag.URL}}, 200*time.Millisecond)
	addr := freeAddr(t)
	h1 := startHubProcess(t, "--config", cfg, "--listen", addr)
	url := "http://" + addr
	d1, d2 := attachHeadless(t, url, "alice"), attachHeadless(t, url, "bob")

	first := ag.Start("deploy")
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
	ag.SetHold(true)
	sent := make(chan approvals.Outcome, 1)
	go func() { sent <- d1.svc.Send(context.Background(), dec) }()
	eventually(t, "the agent takes the approval", func() bool { return ag.OnTask(first) == 1 })
	h1.kill()
	out := <-sent
	if out.Result != approvals.ResultUnknown || out.Problem != approvals.ProblemHubNoAnswer {
		t.Errorf("the send the hub never answered: %s (%v), want unknown: the hub stopped answering", out.Words(), out.Err)
	}
	eventually(t, "the agent marked stale while the hub is down", func() bool { return d2.health("deployer") == model.HealthUnreachable })
	if _, ok := d2.task(k); !ok {
		t.Error("the last picture lost the deploy while the hub was down")
	}
	ag.SetHold(false)
	second := ag.Start("deploy") // while the hub is down

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
	if n := ag.OnTask(first); n != 1 {
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

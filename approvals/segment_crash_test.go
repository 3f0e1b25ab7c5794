package approvals

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// Environment of the child process in TestRotationKilledAtEachStep.
const (
	envRotStep    = "A2ATOP_APPROVALS_ROTATE_STEP" // the step after which the child kills itself
	envRotAt      = "A2ATOP_APPROVALS_ROTATE_AT"   // in which rotation: 1 at the decision's write, 2 at the outcome's
	envRotJournal = "A2ATOP_APPROVALS_ROTATE_JOURNAL"
	envRotURL     = "A2ATOP_APPROVALS_ROTATE_URL"
	envRotTask    = "A2ATOP_APPROVALS_ROTATE_TASK"
	envRotSign    = "A2ATOP_APPROVALS_ROTATE_SIGN" // "1": the child signs a checkpoint after every record, as a hub does
)

// TestRotateChild is the child half of TestRotationKilledAtEachStep: it
// opens the journal with a segment of one byte (every write rotates),
// replies to the task, and kills itself (SIGKILL: no deferred code, no
// flush) right after the given step of the given rotation. It does
// nothing unless the parent started it.
func TestRotateChild(t *testing.T) {
	step, _ := strconv.Atoi(os.Getenv(envRotStep))
	if step == 0 {
		t.Skip("runs only as the child of TestRotationKilledAtEachStep")
	}
	at, _ := strconv.Atoi(os.Getenv(envRotAt))
	url := os.Getenv(envRotURL)
	snd := newSDKSender()
	snd.add(t, "agent", url, "")
	svc, err := Open(Options{JournalPath: os.Getenv(envRotJournal), Sender: snd, Approver: "ops@test", SendTimeout: 5 * time.Second,
		Agents: []Agent{{Name: "agent", URL: url}}, Segment: SegmentPolicy{Size: 1}, Checkpoints: rotateCheckpoints()})
	if err != nil {
		t.Fatal(err)
	}
	rotation := 0
	svc.st.(*fileStore).seg.step = func(k int) {
		if k == stepWritten {
			rotation++
		}
		if rotation == at && k == step {
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {}
		}
	}
	task, err := snd.Get(context.Background(), "agent", a2a.TaskID(os.Getenv(envRotTask)), 0, false)
	if err != nil {
		t.Fatal(err)
	}
	d, err := svc.Prepare(svc.ItemFor(modelTask("agent", task)), Input{Kind: KindReply, Text: "main"})
	if err != nil {
		t.Fatal(err)
	}
	out := svc.Send(context.Background(), d)
	t.Fatalf("the child survived rotation %d step %d: %s %v", at, step, out.Result, out.Err)
}

// TestRotationKilledAtEachStep: a process that rotates the journal is
// killed (SIGKILL) after each step of the rotation, at the rotation that
// follows its decision's record (nothing sent yet) and at the one that
// follows its outcome's (sent and accepted). The next start, as a user
// meets it: the settled decision made before is still settled, the
// crashed one is pending (reconciled as not delivered, nothing sent) or
// accepted (nothing open), no line is damaged, every decision is in the
// whole journal once, and the next write rotates cleanly over what the
// crash left (a stale next segment, a link) and seals every closed
// segment. A dashboard left open throughout follows it all and holds
// the same journal. Nothing is ever sent twice.
func TestRotationKilledAtEachStep(t *testing.T) {
	for at := 1; at <= 2; at++ {
		for step := stepWritten; step <= stepSealed; step++ {
			t.Run(fmt.Sprintf("rotation%d/step%d", at, step), func(t *testing.T) {
				rotationKilled(t, at, step)
			})
		}
	}
}

func rotationKilled(t *testing.T, at, step int, env ...string) (path string) {
	fx := newFixture(t)
	first := fx.start(t, "ask")
	if out := fx.svc.Send(context.Background(), fx.mustPrepare(t, first, Input{Kind: KindReply, Text: "main"})); out.Result != ResultAccepted {
		t.Fatalf("the first decision: %s %v", out.Result, out.Err)
	}
	fx.svc.Close()
	follower := openService(t, Options{JournalPath: fx.path, Agents: []Agent{{Name: "agent", URL: fx.ag.srv.URL}}}) // a dashboard left open throughout

	mt := fx.start(t, "ask")
	cmd := exec.Command(os.Args[0], "-test.run=^TestRotateChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), envRotStep+"="+strconv.Itoa(step), envRotAt+"="+strconv.Itoa(at),
		envRotJournal+"="+fx.path, envRotURL+"="+fx.ag.srv.URL, envRotTask+"="+string(mt.Key.ID))
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child was not killed: %v\n%s", err, out)
	}

	seq := 1 // the segment the journal's path holds after the crash: the child died where it was told to
	if recs := records(t, fx.path); len(recs) > 0 && recs[0].Type == recSegment {
		seq = recs[0].Seg.Seq
	}
	if want := at + map[bool]int{true: 1}[step >= stepRenamed]; seq != want {
		t.Fatalf("after the crash the journal's path holds segment %d, want %d", seq, want)
	}

	svc := openService(t, Options{JournalPath: fx.path, Sender: fx.snd, Approver: "ops@test", SendTimeout: 5 * time.Second,
		Agents: []Agent{{Name: "agent", URL: fx.ag.srv.URL}}, Segment: SegmentPolicy{Size: 1}})
	byTask := func(s *Service) map[a2a.TaskID][]Entry {
		m := map[a2a.TaskID][]Entry{}
		hist, err := s.History() // what the journal view shows, paging back
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range hist {
			if e.MessageID != "" {
				m[e.TaskID] = append(m[e.TaskID], e)
			}
		}
		return m
	}
	j := byTask(svc)
	if es := j[first.Key.ID]; len(es) > 1 || (len(es) == 1 && es[0].Result != ResultAccepted) {
		t.Fatalf("the decision settled before the crash: %+v", es)
	}
	crashed := j[mt.Key.ID]
	want := map[int]Result{1: ResultPending, 2: ResultAccepted}[at]
	if len(crashed) != 1 || crashed[0].Result != want || crashed[0].Attempts != 1 {
		t.Fatalf("the crashed decision after the restart: %+v, want one %s", crashed, want)
	}
	id := crashed[0].MessageID
	sent := map[int]int{1: 0, 2: 1}[at]
	if n := fx.ag.times(id); n != sent {
		t.Fatalf("the agent received the crashed decision %d times, want %d", n, sent)
	}
	if d := svc.Damage(); len(d) != 0 {
		t.Fatalf("damage after the restart: %+v", d)
	}
	rs := svc.Reconcile(context.Background())
	switch {
	case at == 1 && (len(rs) != 1 || rs[0].Result != ResultNotDelivered):
		t.Fatalf("reconcile = %+v, want the crashed decision not delivered", rs)
	case at == 2 && len(rs) != 0:
		t.Fatalf("reconcile = %+v: a settled decision was open again", rs)
	}
	if n := fx.ag.times(id); n != sent {
		t.Fatalf("reconcile sent: the agent received it %d times", n)
	}

	next := fx.start(t, "ask")
	d, err := svc.Prepare(svc.ItemFor(next), Input{Kind: KindReply, Text: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if out := svc.Send(context.Background(), d); out.Result != ResultAccepted {
		t.Fatalf("a decision after the restart: %s %v", out.Result, out.Err)
	}
	if _, err := os.Stat(tempPath(fx.path)); !os.IsNotExist(err) {
		t.Fatalf("a rotation after the restart left %s: %v", tempPath(fx.path), err)
	}
	seqs, err := archives(fx.path)
	if err != nil || len(seqs) == 0 {
		t.Fatalf("closed segments: %v %v", seqs, err)
	}
	for _, n := range seqs {
		if fi, err := os.Stat(archivePath(fx.path, n)); err != nil || fi.Mode().Perm() != 0o400 {
			t.Fatalf("closed segment %d: %v %v, want mode 0400", n, fi, err)
		}
	}
	all := openService(t, Options{JournalPath: fx.path, ReadOnly: true, Memory: MemoryAll,
		Agents: []Agent{{Name: "agent", URL: fx.ag.srv.URL}}})
	whole := byTask(all)
	wantWhole := map[a2a.TaskID]Result{first.Key.ID: ResultAccepted, mt.Key.ID: map[int]Result{1: ResultNotDelivered, 2: ResultAccepted}[at],
		next.Key.ID: ResultAccepted}
	for task, res := range wantWhole {
		if es := whole[task]; len(es) != 1 || es[0].Result != res || es[0].Attempts != 1 {
			t.Fatalf("task %s in the whole journal: %+v, want one %s", task, es, res)
		}
	}
	if len(all.Damage()) != 0 {
		t.Fatalf("damage in the whole journal: %+v", all.Damage())
	}
	if _, err := follower.Refresh(); err != nil {
		t.Fatalf("the dashboard left open across the crash: %v", err)
	}
	if got, want := entryWords(follower.Journal()), entryWords(all.Journal()); got != want || len(follower.Damage()) != 0 {
		t.Fatalf("the dashboard left open holds\n%s\nthe whole journal\n%s\n(damage %v)", got, want, follower.Damage())
	}
	chainHolds(t, fx.path, svc, follower, all) // the chain too: across every segment, whichever step the crash came after
	for task := range wantWhole {
		for _, e := range whole[task] {
			if n := fx.ag.times(e.MessageID); n > 1 {
				t.Fatalf("decision %s reached the agent %d times", e.MessageID, n)
			}
		}
	}
	return fx.path
}

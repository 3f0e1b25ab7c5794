package approvals

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// TestRotationFollowedByOthers: two Services share a journal (as two
// processes: their own descriptors). One rotates on every write; the
// other, which reads by offset, notices each rotation (even two between
// its reads), reads the closed segment to its end and goes on in the
// next without missing or passing on twice a line, and its own writes
// go to the open segment, never to a closed one.
func TestRotationFollowedByOthers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "journal.jsonl")
	writeOpenJournal(t, path)
	seen := map[string][]int{}
	onJournal := func(who string) func([]JournalLine) {
		return func(ls []JournalLine) {
			for _, l := range ls {
				if strings.Contains(string(l.Raw), `"carried"`) || strings.Contains(string(l.Raw), `"type":"segment"`) {
					t.Errorf("%s was handed a restated line %d: %s", who, l.N, l.Raw)
				}
				seen[who] = append(seen[who], l.N)
			}
		}
	}
	a := openService(t, Options{JournalPath: path, Segment: SegmentPolicy{Size: 1}, OnJournal: onJournal("a")})
	b := openService(t, Options{JournalPath: path, OnJournal: onJournal("b")})
	note := func(svc *Service, task string) {
		t.Helper()
		if err := svc.write(record{Type: recState, Agent: "deployer", Task: a2a.TaskID(task), From: a2a.TaskStateWorking, To: a2a.TaskStateCompleted, Source: "fleet"}); err != nil {
			t.Fatal(err)
		}
	}
	note(a, "a1") // rotates: segment 2
	note(a, "a2") // and 3
	note(b, "b1") // b reads segments 1, 2 and 3 to their ends, then writes to 3; a's next write rotates to 4
	if _, err := b.Refresh(); err != nil {
		t.Fatal(err)
	}
	note(a, "a3")
	note(b, "b2")
	if _, err := a.Refresh(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Refresh(); err != nil {
		t.Fatal(err)
	}
	for who, ns := range seen {
		if !slices.IsSorted(ns) || len(slices.Compact(slices.Clone(ns))) != len(ns) {
			t.Fatalf("%s was handed lines %v: out of order or twice", who, ns)
		}
	}
	if !slices.Equal(seen["a"], seen["b"]) {
		t.Fatalf("a was handed lines %v, b %v", seen["a"], seen["b"])
	}
	if summary(a.Journal()) == nil || !slices.Equal(summary(a.Journal()), summary(b.Journal())) || len(a.Journal()) != len(b.Journal()) {
		t.Fatalf("a holds %v, b %v", a.Journal(), b.Journal())
	}
	seqs, err := archives(path)
	if err != nil || len(seqs) < 3 {
		t.Fatalf("closed segments %v %v", seqs, err)
	}
	tasks := map[string]int{}
	for _, n := range seqs {
		p := archivePath(path, n)
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o400 {
			t.Fatalf("closed segment %s: %v %v", p, fi, err)
		}
	}
	all := openService(t, Options{JournalPath: path, ReadOnly: true, Memory: MemoryAll})
	for _, e := range all.Journal() {
		tasks[string(e.TaskID)]++
	}
	for _, task := range []string{"a1", "a2", "a3", "b1", "b2"} {
		if tasks[task] != 1 {
			t.Fatalf("task %s is %d times in the whole journal: %v", task, tasks[task], tasks)
		}
	}
	if len(all.Damage()) != 0 {
		t.Fatalf("damage: %v", all.Damage())
	}
}

// segmentFromEnv is the segment policy a deciding child is told to use.
func segmentFromEnv() SegmentPolicy {
	n, _ := strconv.ParseInt(os.Getenv(envDSegment), 10, 64)
	return SegmentPolicy{Size: n}
}

// TestTwoProcessesDecideOnceAcrossRotations: two processes decide on
// the same prompt at the same moment, as in
// TestTwoProcessesDecideOnePromptOnce, while every write rotates the
// journal. Each time exactly one message reaches the agent, one process
// has it accepted and the other is refused as already decided; the whole
// journal holds each decision once, undamaged.
func TestTwoProcessesDecideOnceAcrossRotations(t *testing.T) {
	rounds := 10
	if testing.Short() || raceEnabled {
		rounds = 4
	}
	fx := newFixture(t)
	fx.svc.Close()
	for round := range rounds {
		mt := fx.start(t, "deploy")
		a := startChild(t, fx, mt.Key.ID, "approve", "alice@test", envDSegment+"=1")
		b := startChild(t, fx, mt.Key.ID, "approve", "bob@test", envDSegment+"=1")
		rs := make([]childResult, 2)
		done := make(chan int, 2)
		for i, c := range []*child{a, b} {
			go func() { rs[i] = c.result(t); done <- i }()
		}
		a.Say(t, "go")
		b.Say(t, "go")
		<-done
		<-done
		fx.ag.waitState(mt.Key.ID, isTerminal)
		if n := fx.ag.onTask(mt.Key.ID); n != 1 {
			t.Fatalf("round %d: %d decisions reached the agent for one prompt: %+v / %+v", round, n, rs[0], rs[1])
		}
		accepted := 0
		for _, r := range rs {
			if r.Result == ResultAccepted {
				accepted++
			} else if r.Problem != ProblemDecided || !r.Decided {
				t.Fatalf("round %d: %+v, want accepted or already decided", round, r)
			}
		}
		if accepted != 1 {
			t.Fatalf("round %d: %+v / %+v, want one accepted", round, rs[0], rs[1])
		}
	}
	all := openService(t, Options{JournalPath: fx.path, ReadOnly: true, Memory: MemoryAll, Agents: []Agent{{Name: "agent", URL: fx.ag.srv.URL}}})
	if seqs, _ := archives(fx.path); len(seqs) < rounds {
		t.Fatalf("%d closed segments after %d rounds: the journal did not rotate", len(seqs), rounds)
	}
	perTask := map[a2a.TaskID]int{}
	for _, e := range all.Journal() {
		if e.MessageID != "" {
			perTask[e.TaskID]++
			if n := fx.ag.times(e.MessageID); n > 1 || (e.Result == ResultAccepted) != (n == 1) {
				t.Fatalf("decision %+v reached the agent %d times", e, n)
			}
		}
	}
	for task, n := range perTask {
		if n != 1 {
			t.Fatalf("task %s holds %d decisions in the whole journal", task, n)
		}
	}
	if len(perTask) != rounds || len(all.Damage()) != 0 {
		t.Fatalf("%d tasks decided, damage %v", len(perTask), all.Damage())
	}
}

// TestWatchFollowsARotation: a dashboard's Service watches the journal
// (fsnotify); another Service closes the segment (rename over the path:
// the watched file becomes the closed segment) and writes on in the new
// one. The watch moves to the new segment: each later write fires it,
// and the Refresh it calls for finds the record.
func TestWatchFollowsARotation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "journal.jsonl")
	writeOpenJournal(t, path)
	dash := openService(t, Options{JournalPath: path})
	changes, stop, ok := dash.Watch()
	if !ok {
		t.Fatal("Watch: no file-change notification for a journal file on Linux")
	}
	defer stop()
	w := openService(t, Options{JournalPath: path, Segment: SegmentPolicy{Size: 1}})
	for i := range 3 {
		task := a2a.TaskID(fmt.Sprintf("after-%d", i))
		if err := w.write(record{Type: recState, Agent: "deployer", Task: task, From: a2a.TaskStateWorking, To: a2a.TaskStateCompleted}); err != nil {
			t.Fatal(err)
		}
		deadline := time.After(10 * time.Second)
		for found := false; !found; {
			select {
			case <-changes:
			case <-deadline:
				t.Fatalf("after 10 s: no notification of write %d, after %d rotations", i, i)
			}
			if _, err := dash.Refresh(); err != nil {
				t.Fatal(err)
			}
			for _, e := range dash.Journal() {
				found = found || e.TaskID == task
			}
		}
	}
}

// TestMirrorFollowsTheHubAcrossRotations: the hub's Service rotates on
// every write; a dashboard attached to it (a mirror following the lines
// it publishes) holds the hub's journal throughout, the restated lines
// never published twice. After a restart of the hub, which reads the
// open segment alone, a dashboard that attaches then holds what the hub
// holds.
func TestMirrorFollowsTheHubAcrossRotations(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "journal.jsonl")
	writeOpenJournal(t, path)
	var tp tap
	hub := openService(t, Options{JournalPath: path, Segment: SegmentPolicy{Size: 1}, OnJournal: tp.on})
	other := openService(t, Options{JournalPath: path}) // `a2atop reply` on the hub's machine
	mirror := openService(t, Options{Hub: &refusingHub{}, Approver: "ops@test"})
	for i := range 4 {
		w := hub
		if i == 2 {
			w = other
		}
		if err := w.write(record{Type: recState, Agent: "deployer", Task: a2a.TaskID(fmt.Sprintf("t%d", i)), From: a2a.TaskStateWorking, To: a2a.TaskStateCompleted}); err != nil {
			t.Fatal(err)
		}
		if _, err := hub.Refresh(); err != nil {
			t.Fatal(err)
		}
		if err := mirror.Follow(tp.all()); err != nil {
			t.Fatal(err)
		}
		if got, want := entryWords(mirror.Journal()), entryWords(hub.Journal()); got != want {
			t.Fatalf("after write %d the mirror holds\n%s\nthe hub\n%s", i, got, want)
		}
	}
	hub.Close()
	var tp2 tap
	restarted := openService(t, Options{JournalPath: path, Segment: SegmentPolicy{Size: 1}, OnJournal: tp2.on})
	late := openService(t, Options{Hub: &refusingHub{}, Approver: "ops@test"})
	if err := late.Follow(tp2.all()); err != nil {
		t.Fatal(err)
	}
	if got, want := entryWords(late.Journal()), entryWords(restarted.Journal()); got != want || len(late.Damage()) != 0 {
		t.Fatalf("a dashboard attached after the restart holds\n%s\nthe hub\n%s\n(damage %v)", got, want, late.Damage())
	}
	if late.Forgotten() == 0 {
		t.Fatal("the late dashboard does not say older entries are in the hub's file")
	}
}

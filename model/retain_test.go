package model

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"weak"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

func TestRetainHistory(t *testing.T) {
	f := NewFleet(Options{MaxHistory: 2})
	var msgs []*a2a.Message
	for i := range 5 {
		msgs = append(msgs, &a2a.Message{ID: fmt.Sprint("m", i), Parts: a2a.ContentParts{a2a.NewTextPart("x")}})
	}
	f.Apply([]Event{withHistory(snap("a", "t1", a2a.TaskStateWorking, 1), msgs...)})
	tk := f.Task(TaskKey{"a", "t1"})
	if h := tk.Snapshot.History; len(h) != 2 || h[0].ID != "m3" || h[1].ID != "m4" || !tk.Truncated {
		t.Errorf("history = %d messages, truncated = %v", len(h), tk.Truncated)
	}
	g := NewFleet(Options{MaxHistory: -1})
	g.Apply([]Event{withHistory(snap("a", "t1", a2a.TaskStateWorking, 1), msgs...)})
	if n := len(g.Task(TaskKey{"a", "t1"}).Snapshot.History); n != 5 {
		t.Errorf("unlimited history kept %d", n)
	}
}

func TestRetainArtifactBytes(t *testing.T) {
	f := NewFleet(Options{MaxArtifactBytes: 10})
	f.Apply([]Event{
		status("test-runner", "r1", a2a.TaskStateWorking, 1, nil),
		artifactEv("test-runner", "r1", "log", "123456", false, false),
		artifactEv("test-runner", "r1", "log", "789é", true, false),
		artifactEv("test-runner", "r1", "log", "more", true, true),
	})
	tk := f.Task(TaskKey{"test-runner", "r1"})
	if got := artifactText(tk, "log"); got != "789émore" || !tk.Truncated || tk.artBytes != 9 {
		t.Errorf("log = %q truncated = %v bytes = %d (want the newest chunks, whole)", got, tk.Truncated, tk.artBytes)
	}
	// replacing the artifact frees its bytes
	f.Apply([]Event{artifactEv("test-runner", "r1", "log", "abc", false, true)})
	if got := artifactText(tk, "log"); got != "abc" || tk.artBytes != 3 {
		t.Errorf("log = %q bytes = %d", got, tk.artBytes)
	}
	// a chunk larger than the cap keeps its end, cut at a rune boundary
	f.Apply([]Event{artifactEv("test-runner", "r1", "log", "0123456789é!", true, false)})
	if got := artifactText(tk, "log"); got != "3456789é!" || tk.artBytes != 10 {
		t.Errorf("log = %q bytes = %d (want the end of the big chunk)", got, tk.artBytes)
	}
	// An ended task's snapshot keeps the start of each artifact (a report
	// reads from the top); a running task's the end (a log's last lines,
	// which later chunks continue).
	for _, tc := range []struct {
		state a2a.TaskState
		a, b  string
	}{{a2a.TaskStateCompleted, "xxxxxx", "yy"}, {a2a.TaskStateWorking, "xxxxxx", ""}} {
		g := NewFleet(Options{MaxArtifactBytes: 8})
		e := snap("a", "t1", tc.state, 1)
		e.Task.Artifacts = []*a2a.Artifact{
			{ID: "a", Parts: a2a.ContentParts{a2a.NewTextPart(strings.Repeat("x", 6))}},
			{ID: "b", Name: "b.txt", Parts: a2a.ContentParts{a2a.NewTextPart("yyyy"), a2a.NewRawPart([]byte("zz"))}},
		}
		g.Apply([]Event{e})
		tk = g.Task(TaskKey{"a", "t1"})
		if artifactText(tk, "a") != tc.a || artifactText(tk, "b") != tc.b || len(tk.Snapshot.Artifacts) != 2 || tk.artBytes != 8 {
			t.Errorf("%s: artifacts = %q %q, %d bytes", tc.state, artifactText(tk, "a"), artifactText(tk, "b"), tk.artBytes)
		}
	}
}

// TestRetainStreamedArtifactPastTheCap streams a log well past
// MaxArtifactBytes: every chunk is applied and held until newer ones push
// it out, so what the fleet holds is always the newest chunks, in order,
// with no gap, the latest among them. Cutting at the cap used to keep the
// first chunks and drop every later one while the task still showed the
// artifact streaming.
func TestRetainStreamedArtifactPastTheCap(t *testing.T) {
	const limit = 1000
	f := NewFleet(Options{MaxArtifactBytes: limit})
	k := TaskKey{"test-runner", "r1"}
	f.Apply([]Event{status(k.Agent, k.ID, a2a.TaskStateWorking, 1, nil)})
	chunk := func(i int) string { return fmt.Sprintf("=== chunk %03d ===\n", i) } // 18 bytes
	for i := range 300 {
		v0 := f.Version()
		f.Apply([]Event{artifactEv(k.Agent, k.ID, "log", chunk(i), i > 0, false)})
		tk := f.Task(k)
		if f.Version() == v0 {
			t.Fatalf("chunk %d changed nothing", i)
		}
		got := artifactText(tk, "log")
		first := max(0, i+1-limit/len(chunk(0)))
		var want strings.Builder
		for j := first; j <= i; j++ {
			want.WriteString(chunk(j))
		}
		if got != want.String() {
			t.Fatalf("after chunk %d the log holds %q…%q (%d bytes), want chunks %d..%d", i, head(got), tail(got), len(got), first, i)
		}
		if tk.artBytes > limit || tk.artBytes != len(got) {
			t.Fatalf("after chunk %d: %d bytes counted, %d held, cap %d", i, tk.artBytes, len(got), limit)
		}
		if i > 0 && !slices.Contains(tk.Partial, "log") {
			t.Fatalf("after chunk %d the log is not marked streaming", i)
		}
	}
	if !f.Task(k).Truncated {
		t.Error("a log cut to the cap is not marked Truncated")
	}
}

func head(s string) string { return s[:min(len(s), 18)] }
func tail(s string) string { return s[max(len(s)-18, 0):] }

func TestRetainTerminalPerAgent(t *testing.T) {
	f := NewFleet(Options{MaxTerminalPerAgent: 2})
	f.Apply([]Event{
		snap("a", "old", a2a.TaskStateCompleted, 1),
		snap("a", "newest", a2a.TaskStateFailed, 9),
		snap("a", "mid", a2a.TaskStateCanceled, 5),
		snap("a", "active", a2a.TaskStateWorking, 0),
		snap("a", "asks", a2a.TaskStateInputRequired, 0),
		snap("b", "other", a2a.TaskStateCompleted, 0),
	})
	if f.Task(TaskKey{"a", "old"}) != nil {
		t.Errorf("the oldest terminal task was kept")
	}
	for _, id := range []a2a.TaskID{"newest", "mid", "active", "asks"} {
		if f.Task(TaskKey{"a", id}) == nil {
			t.Errorf("%s was evicted", id)
		}
	}
	if f.Task(TaskKey{"b", "other"}) == nil {
		t.Errorf("the cap is per agent")
	}
	checkInvariants(t, f)
	// a task finishing later evicts the oldest remaining one
	res := f.Apply([]Event{status("a", "active", a2a.TaskStateCompleted, 7, nil)})
	if res.Evicted != 1 || f.Task(TaskKey{"a", "mid"}) != nil || f.Task(TaskKey{"a", "active"}) == nil {
		t.Errorf("res = %+v", res)
	}
	if f.Index(ClassTerminal, Query{}, TaskKey{"a", "mid"}) != -1 {
		t.Errorf("an evicted task still has a row")
	}
	checkInvariants(t, f)
	// many active tasks: none evicted
	var evs []Event
	for i := range 50 {
		evs = append(evs, snap("a", a2a.TaskID(fmt.Sprint("w", i)), a2a.TaskStateWorking, i))
	}
	f.Apply(evs)
	if f.Agent("a").Counts[ClassActive] != 50 {
		t.Errorf("active tasks = %d", f.Agent("a").Counts[ClassActive])
	}
}

// TestRetainEvictedUnqueried runs tasks through to their end in a fleet
// nobody queries (the hub's: it applies and serves, it never asks for a
// pane) and checks that the evicted ones are let go: their tasks and
// snapshots unreachable after a GC, the pane bookkeeping (the tasks
// changed since the last query, the slots) no larger than what is held.
// Before, every task the fleet ever held stayed listed as changed until
// a query that never came, with its last snapshot and history.
func TestRetainEvictedUnqueried(t *testing.T) {
	const keep, n = 5, 3000
	f := NewFleet(Options{MaxTerminalPerAgent: keep})
	var gone []weak.Pointer[a2a.Task]
	for i := range n {
		id := a2a.TaskID(fmt.Sprint("t", i))
		ask := withHistory(snap("a", id, a2a.TaskStateInputRequired, i), textMsg(strings.Repeat("q", 200)))
		gone = append(gone, weak.Make(ask.Task))
		f.Apply([]Event{ask})
		f.Apply([]Event{status("a", id, a2a.TaskStateCompleted, i, textMsg("done"))})
	}
	if got := f.Len(); got != keep {
		t.Fatalf("the fleet holds %d tasks, want %d", got, keep)
	}
	// The slots are as many as the fleet ever held at once: keep, and
	// the task that evicted the oldest.
	if len(f.dirty) > f.Len() || len(f.slots) > f.Len()+1 {
		t.Errorf("after %d tasks through a fleet that holds %d: %d listed as changed, %d slots", n, f.Len(), len(f.dirty), len(f.slots))
	}
	runtime.GC()
	alive := 0
	for _, p := range gone[:n-keep] {
		if p.Value() != nil {
			alive++
		}
	}
	if alive > 0 {
		t.Errorf("%d of the %d evicted tasks' snapshots are still reachable", alive, n-keep)
	}
	checkInvariants(t, f)

	// A fleet queried once, and not since: the list outgrows neither
	// the fleet nor minDirty.
	g := NewFleet(Options{MaxTerminalPerAgent: keep})
	g.Apply([]Event{snap("a", "first", a2a.TaskStateWorking, 0)})
	if g.Count(ClassActive, Query{}) != 1 {
		t.Fatal("the first task is not shown")
	}
	most := 0
	for i := range n {
		id := a2a.TaskID(fmt.Sprint("t", i))
		g.Apply([]Event{withHistory(snap("a", id, a2a.TaskStateInputRequired, i), textMsg(strings.Repeat("q", 200)))})
		g.Apply([]Event{status("a", id, a2a.TaskStateCompleted, i, textMsg("done"))})
		most = max(most, len(g.dirty))
	}
	if most > max(minDirty, g.Len())+1 {
		t.Errorf("a fleet queried once listed up to %d tasks as changed; it holds %d", most, g.Len())
	}
	if got := g.Count(ClassTerminal, Query{}); got != keep {
		t.Errorf("%d ended tasks shown, want %d", got, keep)
	}
	checkInvariants(t, g)
}

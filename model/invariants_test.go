package model

import (
	"slices"
	"testing"
)

// checkInvariants checks what must hold after any sequence of events:
// pane counts equal the rows the queries return and the tasks held; rows
// are in order; agent counts add up; every interrupted task's chain ends
// at an interrupted leaf.
func checkInvariants(t testing.TB, f *Fleet) {
	t.Helper()
	var held [4]int
	for _, a := range f.Agents() {
		var n [4]int
		for _, tk := range heldTasks(f, a) {
			n[tk.Class]++
			held[tk.Class]++
		}
		if n != a.Counts {
			t.Fatalf("agent %q counts %v, tasks held %v", a.Name, a.Counts, n)
		}
		if len(a.held) != n[0]+n[1]+n[2]+n[3] {
			t.Fatalf("agent %q lists %d tasks, holds %d", a.Name, len(a.held), n[0]+n[1]+n[2]+n[3])
		}
		bytes := 0
		for i, tk := range a.held {
			if tk.agent != a || int(tk.heldIdx) != i || tk.removed {
				t.Fatalf("agent %q task list entry %d is %v", a.Name, i, tk.Key)
			}
			if m := statusSize(tk, tk.Snapshot.Status.Message); int(tk.msgBytes) != m || int(tk.restBytes) != contentSize(tk.Snapshot) {
				t.Fatalf("task %v accounts %d+%d bytes, holds %d+%d", tk.Key, tk.msgBytes, tk.restBytes, m, contentSize(tk.Snapshot))
			}
			bytes += tk.size()
		}
		if bytes != a.Bytes {
			t.Fatalf("agent %q accounts %d bytes, its tasks hold %d", a.Name, a.Bytes, bytes)
		}
		if max := f.opts.MaxAgentBytes; max >= 0 && a.Bytes > max {
			// Past the budget only when nothing is left to trim.
			for _, tk := range a.held {
				if f.detailsCut(tk) != nil || f.statusCut(tk) != nil {
					t.Fatalf("agent %q holds %d bytes after Apply, past MaxAgentBytes %d, and task %v could be trimmed", a.Name, a.Bytes, max, tk.Key)
				}
			}
		}
	}
	if f.fleetOver() {
		// Past the fleet's budget only when no agent above its share has
		// anything left to trim.
		share := f.fleetShare()
		for _, a := range f.agents {
			for _, tk := range a.held {
				if a.Bytes > share && (f.detailsCut(tk) != nil || f.statusCut(tk) != nil) {
					t.Fatalf("the fleet holds %d bytes, past MaxFleetBytes %d, and task %v of %q (%d bytes, share %d) could be trimmed",
						f.bytes, f.opts.MaxFleetBytes, tk.Key, a.Name, a.Bytes, share)
				}
			}
		}
	}
	total := 0
	for _, a := range f.agents {
		total += a.Bytes
	}
	if total != f.bytes {
		t.Fatalf("the fleet accounts %d bytes, its agents hold %d", f.bytes, total)
	}
	for _, s := range []SortBy{SortUpdated, SortAge, SortAgent} {
		for c := ClassUnknown; c <= ClassTerminal; c++ {
			q := Query{Sort: s}
			rows := f.Page(c, q, 0, f.Len()+1)
			if f.Count(c, q) != len(rows) || len(rows) != held[c] {
				t.Fatalf("class %v sort %v: Count %d, Page %d rows, held %d", c, s, f.Count(c, q), len(rows), held[c])
			}
			for i, r := range rows {
				if r.Class != c || f.Task(r.Key) != r {
					t.Fatalf("class %v row %d: %+v is not a held task of the class", c, i, r.Key)
				}
				if i > 0 && !keyLess(rows[i-1], r, s) {
					t.Fatalf("class %v sort %v: rows %d and %d out of order", c, s, i-1, i)
				}
				if f.Index(c, q, r.Key) != i {
					t.Fatalf("Index(%v) = %d, want %d", r.Key, f.Index(c, q, r.Key), i)
				}
			}
		}
	}
	for _, tk := range f.Interrupted(SortAge) {
		ch := f.Chain(tk.Key)
		if len(ch) == 0 || !slices.Contains(ch, tk) {
			t.Fatalf("chain of %v does not contain it", tk.Key)
		}
		if leaf := ch[len(ch)-1]; leaf.Class != ClassInterrupted {
			t.Fatalf("chain of %v ends at %v in class %v", tk.Key, leaf.Key, leaf.Class)
		}
		for i, x := range ch {
			if slices.Index(ch, x) != i {
				t.Fatalf("chain of %v repeats %v", tk.Key, x.Key)
			}
		}
	}
}

func keyLess(a, b *Task, s SortBy) bool {
	ka, kb := keyOf(a, s), keyOf(b, s)
	return ka.less(&kb)
}

// heldTasks returns a's tasks as the id map holds them (not the slots
// the pane indexes are built from), in no particular order.
func heldTasks(f *Fleet, a *Agent) []*Task {
	var out []*Task
	for _, t := range f.byID {
		for ; t != nil; t = t.twin {
			if t.agent == a {
				out = append(out, t)
			}
		}
	}
	return out
}

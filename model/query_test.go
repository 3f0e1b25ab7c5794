package model

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

func TestParseFilter(t *testing.T) {
	tests := []struct {
		in   string
		want string // canonical
	}{
		{"", ""},
		{"  Deploy  ", "deploy"},
		{"agent:Deployer", "agent:deployer"},
		{"state:input-required", "state:input-required"},
		{"state:TASK_STATE_INPUT_REQUIRED", "state:input-required"},
		{"state:INPUT_REQUIRED", "state:input-required"},
		{"STATE:auth-required class:Terminal", "state:auth-required class:terminal"},
		{"class:nope", "class:nope"},
		{"agent: state: class:", ""},
		{"agent:test state:working 9f3c", "agent:test state:working 9f3c"},
		{"url:http://x", "url:http://x"},
		{":x", ":x"},
		{"state:rej", "state:rejected"},
		{"state:input", "state:input-required"},
		{"state:AUTH", "state:auth-required"},
		{"state:c", "state:c"},           // completed or canceled: names nothing alone
		{"state:paused", "state:paused"}, // a typo or an agent's own state: the agent's is named TASK_STATE_PAUSED
		{"state:TASK_STATE_PAUSED", "state:unknown(TASK_STATE_PAUSED)"},
		{"state:unknown(TASK_STATE_PAUSED)", "state:unknown(TASK_STATE_PAUSED)"}, // as String writes it
		{"id:2B42 Deploy", "id:2B42 deploy"},
		{"12:30 http://x", "12:30 http://x"}, // words with a colon, not keys
		{"state:unknown", "state:unknown"},
	}
	for _, tt := range tests {
		if got := ParseFilter(tt.in).String(); got != tt.want {
			t.Errorf("ParseFilter(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	for _, in := range []string{"state:c", "class:nope", "state:waiting", "state:paused", "stat:failed", "url:http://x"} {
		if f := ParseFilter(in); len(f.Invalid) != 1 {
			t.Errorf("ParseFilter(%q).Invalid = %v, want the token", in, f.Invalid)
		}
	}
	if !ParseFilter("  ").Empty() || ParseFilter("class:nope").Empty() {
		t.Errorf("Empty is wrong")
	}
}

// TestFilterProblems: a token that names nothing says why and names
// what it could be, and an agent: that starts no agent's name says which
// agents there are.
func TestFilterProblems(t *testing.T) {
	agents := []string{"deployer", "test-runner"}
	tests := []struct{ in, want string }{
		{"stat:failed", `unknown filter key "stat" in stat:failed: use agent:NAME, state:STATE, class:CLASS, id:ID or words`},
		{"deploy state:waiting", "state:waiting names no state: use submitted, working, input-required, auth-required, " +
			"completed, failed, canceled, rejected, unknown, or an agent's own state as state:TASK_STATE_NAME"},
		{"state:c", "state:c could be completed or canceled"},
		{"class:nope", "class:nope names no class: use active, interrupted, terminal or unknown"},
		{"agent:nosuch", "agent:nosuch names no agent: the agents are deployer, test-runner"},
		{"agent:DEP state:fail id:x words", ""},
	}
	for _, tt := range tests {
		err := ParseFilter(tt.in).Check(agents)
		if got := fmt.Sprint(err); tt.want == "" && err != nil || tt.want != "" && got != tt.want {
			t.Errorf("ParseFilter(%q).Check = %v, want %q", tt.in, err, tt.want)
		}
	}
	if err := ParseFilter("agent:nosuch").Check(nil); err != nil {
		t.Errorf("with no agents known, agent: is not checked: %v", err)
	}
}

func TestFilterMatch(t *testing.T) {
	f := NewFleet(Options{})
	f.Apply([]Event{
		status("deployer", "3d8f7801-aaaa", a2a.TaskStateAuthRequired, 1, textMsg("Approve deploy of 9f3c2e1 to staging?")),
		status("code-reviewer", "c1", a2a.TaskStateInputRequired, 2, textMsg("Which branch should I compare against?")),
		status("legacy-intake", "l1", "input-required", 3, textMsg("Email?")),
		status("test-runner", "r1", a2a.TaskStateCompleted, 4, textMsg("1 failed, 11 passed")),
		status("test-runner", "r2", "TASK_STATE_PAUSED", 5, nil),
	})
	tests := []struct {
		filter string
		want   []a2a.TaskID
	}{
		{"", []a2a.TaskID{"3d8f7801-aaaa", "c1", "l1", "r1", "r2"}},
		{"DEPLOY", []a2a.TaskID{"3d8f7801-aaaa"}},          // status text and agent, any case
		{"3D8F", []a2a.TaskID{"3d8f7801-aaaa"}},            // id
		{"reviewer", []a2a.TaskID{"c1"}},                   // agent name
		{"agent:TEST", []a2a.TaskID{"r1", "r2"}},           // agent prefix
		{"agent:runner", nil},                              // a prefix, not a substring
		{"state:input-required", []a2a.TaskID{"c1", "l1"}}, // 0.3 and v1.0 tasks alike
		{"state:TASK_STATE_INPUT_REQUIRED", []a2a.TaskID{"c1", "l1"}},
		{"state:auth_required", []a2a.TaskID{"3d8f7801-aaaa"}},
		{"state:unknown", []a2a.TaskID{"r2"}},
		{"state:TASK_STATE_PAUSED", []a2a.TaskID{"r2"}},
		{"state:paused", nil}, // names no state: an error, not a match
		{"id:3d8f", []a2a.TaskID{"3d8f7801-aaaa"}},
		{"id:aaaa", nil}, // a start of the id, not a part of it
		{"class:interrupted", []a2a.TaskID{"3d8f7801-aaaa", "c1", "l1"}},
		{"class:terminal failed", []a2a.TaskID{"r1"}},
		{"class:interrupted agent:code which", []a2a.TaskID{"c1"}}, // AND
		{"class:interrupted agent:deployer which", nil},
		{"agent:deployer agent:code", nil},
		{"class:bogus", nil},
	}
	for _, tt := range tests {
		flt := ParseFilter(tt.filter)
		var got []a2a.TaskID
		for _, id := range []a2a.TaskID{"3d8f7801-aaaa", "c1", "l1", "r1", "r2"} {
			for _, tk := range f.Lookup(id) {
				if flt.Match(tk) {
					got = append(got, id)
				}
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("filter %q matched %v, want %v", tt.filter, got, tt.want)
		}
	}
}

func TestPaneOrderAndPaging(t *testing.T) {
	f := NewFleet(Options{})
	f.Apply([]Event{
		snap("b-agent", "t1", a2a.TaskStateWorking, 30),
		snap("a-agent", "t2", a2a.TaskStateWorking, 10),
		snap("c-agent", "t3", a2a.TaskStateSubmitted, 20),
		snap("a-agent", "t4", a2a.TaskStateWorking, 40),
	})
	ids := func(ts []*Task) []a2a.TaskID {
		var out []a2a.TaskID
		for _, t := range ts {
			out = append(out, t.Key.ID)
		}
		return out
	}
	check := func(s SortBy, want ...a2a.TaskID) {
		t.Helper()
		if got := ids(f.Page(ClassActive, Query{Sort: s}, 0, 10)); !slices.Equal(got, want) {
			t.Errorf("sort %v: %v, want %v", s, got, want)
		}
	}
	check(SortUpdated, "t4", "t1", "t3", "t2")
	check(SortAge, "t2", "t3", "t1", "t4")
	check(SortAgent, "t4", "t2", "t1", "t3")
	// t2 is updated: it moves to the top; its age does not change
	f.Apply([]Event{status("a-agent", "t2", a2a.TaskStateWorking, 50, nil)})
	check(SortUpdated, "t2", "t4", "t1", "t3")
	check(SortAge, "t2", "t3", "t1", "t4")
	check(SortAgent, "t2", "t4", "t1", "t3")
	if i := f.Index(ClassActive, Query{}, TaskKey{"a-agent", "t2"}); i != 0 {
		t.Errorf("Index after the move = %d", i)
	}
	if got := ids(f.Page(ClassActive, Query{}, 1, 2)); !slices.Equal(got, []a2a.TaskID{"t4", "t1"}) {
		t.Errorf("page 1,2 = %v", got)
	}
	if f.Page(ClassActive, Query{}, 10, 5) != nil || f.Page(ClassActive, Query{}, 0, 0) != nil {
		t.Errorf("out-of-range pages are not empty")
	}
	if got := ids(f.Page(ClassActive, Query{}, -3, 1)); !slices.Equal(got, []a2a.TaskID{"t2"}) {
		t.Errorf("negative offset = %v", got)
	}
	if f.Index(ClassTerminal, Query{}, TaskKey{"a-agent", "t2"}) != -1 ||
		f.Index(ClassActive, Query{Filter: ParseFilter("agent:b")}, TaskKey{"a-agent", "t2"}) != -1 ||
		f.Index(ClassActive, Query{}, TaskKey{"x", "y"}) != -1 {
		t.Errorf("Index of a task outside the pane is not -1")
	}
	// the inbox order
	f.Apply([]Event{
		status("a-agent", "t4", a2a.TaskStateInputRequired, 60, nil),
		status("b-agent", "t1", a2a.TaskStateAuthRequired, 61, nil),
	})
	if got := ids(f.Interrupted(SortAge)); !slices.Equal(got, []a2a.TaskID{"t1", "t4"}) {
		t.Errorf("Interrupted(SortAge) = %v", got)
	}
	if got := ids(f.Interrupted(SortUpdated)); !slices.Equal(got, []a2a.TaskID{"t1", "t4"}) {
		t.Errorf("Interrupted(SortUpdated) = %v", got)
	}
}

// TestIncrementalIndexesMatchBruteForce applies random events between
// queries, across many views and enough tasks to split blocks, and
// compares every pane with a filter-and-sort of the whole fleet.
func TestIncrementalIndexesMatchBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	f := NewFleet(Options{MaxTerminalPerAgent: 300})
	states := []a2a.TaskState{a2a.TaskStateSubmitted, a2a.TaskStateWorking, a2a.TaskStateInputRequired,
		a2a.TaskStateAuthRequired, a2a.TaskStateCompleted, "input-required", "TASK_STATE_PAUSED", a2a.TaskStateUnspecified}
	words := []string{"deploy", "Build", "review", "email"}
	queries := []Query{{}, {Sort: SortAge}, {Sort: SortAgent}, {Filter: ParseFilter("agent:ag-1")},
		{Filter: ParseFilter("build state:working"), Sort: SortAge}, {Filter: ParseFilter("class:interrupted e"), Sort: SortAgent}}
	for round := range 40 {
		var batch []Event
		for range r.IntN(400) {
			agent := fmt.Sprint("ag-", r.IntN(5))
			id := a2a.TaskID(fmt.Sprint("t", r.IntN(2000)))
			batch = append(batch, status(agent, id, states[r.IntN(len(states))], r.IntN(1000),
				textMsg(words[r.IntN(len(words))])))
		}
		f.Apply(batch)
		for _, q := range queries {
			for c := ClassUnknown; c <= ClassTerminal; c++ {
				var want []*Task
				for _, a := range f.agents {
					for _, tk := range heldTasks(f, a) {
						if tk.Class == c && q.Filter.Match(tk) {
							want = append(want, tk)
						}
					}
				}
				slices.SortFunc(want, func(a, b *Task) int {
					if keyLess(a, b, q.Sort) {
						return -1
					}
					return 1
				})
				got := f.Page(c, q, 0, len(want)+5)
				if !slices.Equal(got, want) || f.Count(c, q) != len(want) {
					t.Fatalf("round %d class %v query %q/%v: %d rows, want %d", round, c, q.Filter, q.Sort, len(got), len(want))
				}
				if len(want) > 0 {
					k := want[len(want)/2].Key
					if f.Index(c, q, k) != len(want)/2 {
						t.Fatalf("Index = %d, want %d", f.Index(c, q, k), len(want)/2)
					}
				}
			}
		}
	}
	checkInvariants(t, f)
}

// TestBurstAndNewAgents covers the two ways views are rebuilt rather
// than replayed: a burst of changes larger than a quarter of the fleet,
// and a new agent that shifts the alphabetical ranks SortAgent uses.
func TestBurstAndNewAgents(t *testing.T) {
	f := NewFleet(Options{MaxTerminalPerAgent: 50})
	var evs []Event
	for i := range 100 {
		evs = append(evs, snap("m-agent", a2a.TaskID(fmt.Sprint("a", i)), a2a.TaskStateCompleted, i))
	}
	f.Apply(evs)
	checkInvariants(t, f) // builds every view
	evs = evs[:0]
	for i := range 6000 {
		evs = append(evs, snap(fmt.Sprint("z-agent-", i%7), a2a.TaskID(fmt.Sprint("b", i)), a2a.TaskStateWorking, i))
	}
	f.Apply(evs)
	checkInvariants(t, f)
	// a new agent sorts first: every rank shifts; an eviction is pending too
	f.Apply([]Event{snap("m-agent", "late", a2a.TaskStateFailed, 500), snap("a-agent", "c1", a2a.TaskStateWorking, 1)})
	checkInvariants(t, f)
	if rows := f.Page(ClassActive, Query{Sort: SortAgent}, 0, 1); len(rows) != 1 || rows[0].Key.Agent != "a-agent" {
		t.Errorf("first row by agent = %v", rows)
	}
}

// TestIdleViewsDropped: a view nobody asks for is dropped by sync and
// comes back right when asked again.
func TestIdleViewsDropped(t *testing.T) {
	f := NewFleet(Options{})
	f.Apply([]Event{snap("a", "t1", a2a.TaskStateWorking, 1), snap("a", "t2", a2a.TaskStateWorking, 2)})
	old := Query{Sort: SortAge}
	if f.Count(ClassActive, old) != 2 {
		t.Fatal("count")
	}
	for i := range idleTicks + 10 {
		f.Apply([]Event{status("a", "t1", a2a.TaskStateWorking, 10+i, nil)})
		f.Count(ClassActive, Query{})
	}
	for _, v := range f.views {
		if v.sort == SortAge {
			t.Fatalf("an idle view was kept")
		}
	}
	f.Apply([]Event{snap("a", "t3", a2a.TaskStateWorking, 0)})
	if rows := f.Page(ClassActive, old, 0, 5); len(rows) != 3 || rows[0].Key.ID != "t3" {
		t.Errorf("rebuilt view rows = %v", rows)
	}
	checkInvariants(t, f)
}

// TestFreeTextMatchesWhatTheRowShows: a free-text word matches a task
// when it occurs in any cell of its row: agent, id, state, status text or
// the task's own result hint. "failed" once listed only the completed run
// whose status said "1 failed" and none of the tasks in state FAILED.
func TestFreeTextMatchesWhatTheRowShows(t *testing.T) {
	f := NewFleet(Options{})
	summary := func(id a2a.TaskID, text string) Event {
		e := snap("test-runner", id, a2a.TaskStateCompleted, 4)
		e.Task.Status.Message = textMsg(text)
		e.Task.Artifacts = []*a2a.Artifact{{ID: "summary", Parts: a2a.ContentParts{
			a2a.NewDataPart(map[string]any{"passed": 11.0, "failed": 1.0})}}}
		return e
	}
	f.Apply([]Event{
		status("test-runner", "f1", a2a.TaskStateFailed, 1, textMsg("commit deadbee does not exist")),
		status("deployer", "f2", a2a.TaskStateFailed, 2, textMsg("denied: not today")),
		summary("c1", "1 failed, 11 passed"),
		summary("c2", "suite finished"), // the hint alone says "1 failed / 11 passed"
		status("test-runner", "w1", a2a.TaskStateWorking, 3, textMsg("running")),
		status("code-reviewer", "i1", a2a.TaskStateInputRequired, 5, textMsg("Which branch?")),
		status("code-reviewer", "p1", "TASK_STATE_PAUSED", 6, nil),
	})
	for _, tc := range []struct {
		filter string
		want   []a2a.TaskID
	}{
		{"failed", []a2a.TaskID{"f1", "f2", "c1", "c2"}},
		{"FAILED deployer", []a2a.TaskID{"f2"}},
		{"passed", []a2a.TaskID{"c1", "c2"}}, // c2 by its hint
		{"11 passed", []a2a.TaskID{"c1", "c2"}},
		{"input-req", []a2a.TaskID{"i1"}},
		{"working", []a2a.TaskID{"w1"}},
		{"paused", []a2a.TaskID{"p1"}},
		{"unknown", []a2a.TaskID{"p1"}},
	} {
		flt := ParseFilter(tc.filter)
		var got []a2a.TaskID
		for _, id := range []a2a.TaskID{"f1", "f2", "c1", "c2", "w1", "i1", "p1"} {
			for _, tk := range f.Lookup(id) {
				if flt.Match(tk) {
					got = append(got, id)
				}
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("/%s matched %v, want %v", tc.filter, got, tc.want)
		}
		n := 0
		for c := ClassUnknown; c <= ClassTerminal; c++ {
			n += f.Count(c, Query{Filter: flt})
		}
		if n != len(tc.want) {
			t.Errorf("/%s: the panes hold %d rows, want %d", tc.filter, n, len(tc.want))
		}
	}
}

func TestFilterMatchRow(t *testing.T) {
	entry := Row{Agent: "deployer", States: []a2a.TaskState{a2a.TaskStateAuthRequired, a2a.TaskStateFailed},
		Text: []string{"abfc4a03", "deny", "not today"}}
	agent := Row{Agent: "test-runner", Classes: []Class{ClassActive, ClassTerminal}, Text: []string{"http://127.0.0.1:7001", "streaming"}}
	for _, tc := range []struct {
		filter       string
		entry, agent bool
	}{
		{"", true, true},
		{"deny", true, false},
		{"TODAY agent:dep", true, false},
		{"state:failed", true, false},
		{"state:auth", true, false},
		{"failed", true, false}, // the state as rows write it
		{"class:interrupted", true, false},
		{"class:active", false, true},
		{"7001", false, true},
		{"agent:test stream", false, true},
		{"class:bogus", false, false},
	} {
		flt := ParseFilter(tc.filter)
		if got := flt.MatchRow(entry); got != tc.entry {
			t.Errorf("/%s on the entry = %v", tc.filter, got)
		}
		if got := flt.MatchRow(agent); got != tc.agent {
			t.Errorf("/%s on the agent = %v", tc.filter, got)
		}
	}
}

func TestAgentStates(t *testing.T) {
	f := NewFleet(Options{})
	f.Apply([]Event{
		status("a", "1", a2a.TaskStateWorking, 1, nil), status("a", "2", a2a.TaskStateWorking, 2, nil),
		status("a", "3", a2a.TaskStateFailed, 3, nil), status("b", "4", a2a.TaskStateInputRequired, 4, nil),
	})
	got := f.AgentStates("a")
	slices.Sort(got)
	if !slices.Equal(got, []a2a.TaskState{a2a.TaskStateFailed, a2a.TaskStateWorking}) || f.AgentStates("nobody") != nil {
		t.Fatalf("AgentStates(a) = %v", got)
	}
}

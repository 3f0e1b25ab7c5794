package ui

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/approvals"
	"a2atop/model"
	"a2atop/ui/inbox"
)

// benchSender answers every decision as sent; a task it is asked for
// (before a decision goes) is as the fleet holds it.
type benchSender struct{ f *model.Fleet }

func (benchSender) Reply(_ context.Context, _ string, msg *a2a.Message) (*a2a.Task, error) {
	return &a2a.Task{ID: msg.TaskID, Status: a2a.TaskStatus{State: a2a.TaskStateWorking}}, nil
}

func (s benchSender) Get(_ context.Context, agent string, id a2a.TaskID, _ int, _ bool) (*a2a.Task, error) {
	if t := s.f.Task(model.TaskKey{Agent: agent, ID: id}); t != nil && t.Snapshot != nil {
		return t.Snapshot, nil
	}
	return nil, a2a.ErrTaskNotFound
}

// benchJournalEntries is how many decisions the journal of
// BenchmarkEveryView holds.
const benchJournalEntries = 200

// BenchmarkEveryView is one full View() at 200x50 of every screen and
// of each power tool's state of a screen, with 100,000 tasks across 100
// agents (28,572 of them waiting on a person), the inbox and the journal
// wired to a real approvals service whose journal holds 200 decisions.
// Goal: under 2 ms a frame each.
func BenchmarkEveryView(b *testing.B) {
	f := model.NewFleet(model.Options{MaxTerminalPerAgent: 100_000})
	f.Apply(benchEvents(0, 100_000))
	svc, err := approvals.Open(approvals.Options{JournalPath: filepath.Join(b.TempDir(), "journal.jsonl"), Sender: benchSender{f},
		Approver: "ops@host", Now: func() time.Time { return testNow }})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { svc.Close() })
	journalDecisions(b, svc, f, benchJournalEntries)
	views := inbox.Options{Sort: model.SortAge}
	open := func() *Model {
		m, _ := newTestModel(b, Options{Fleet: f, Inbox: inbox.InboxFactory(svc, views), Journal: inbox.JournalFactory(svc, views),
			Compose: inbox.ComposeFactory(svc, views), Views: []SavedView{{Name: "waiting", Filter: "class:interrupted", Sort: "age desc",
				Columns: []string{"agent", "id", "state", "status"}}}})
		return sized(m, 200, 50)
	}
	for _, tc := range []struct {
		name string
		keys []string
		want string // on the frame, to know the keys reached the state
	}{
		{"tasks", nil, "Terminal"},
		{"tasks-zoom", []string{"tab", "z"}, "all panes"},
		{"tasks-filter", []string{"/", "a", "g", "e", "n", "t", "-", "7", "enter"}, "agent-7"},
		{"tasks-marked-all", []string{"*"}, "marked"},
		{"tasks-sort-status", []string{"T"}, "STATUS↑"},
		{"tasks-saved-view", []string{"5"}, "[5 waiting]"},
		{"cmdline", []string{":", "s", "o", "r", "t", "space"}, ":sort "},
		{"detail", []string{"enter"}, "History"},
		{"detail-search", []string{"enter", "/", "s", "t", "e", "p", "enter"}, "search"},
		{"detail-raw", []string{"enter", "J"}, "raw JSON"},
		{"agents", []string{"3"}, "Agents"},
		{"help", []string{"?"}, "Keys"},
		{"inbox", []string{"2"}, "waiting"},
		{"inbox-marked-all", []string{"2", "*"}, "marked"},
		{"inbox-sort-question", []string{"2", "T"}, "waiting"},
		{"journal", []string{"4"}, "approved"},
		{"compose", []string{"n"}, "Choose the agent"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			m := open()
			press(m, tc.keys...)
			if v := m.View(); !strings.Contains(v, tc.want) {
				b.Fatalf("%v does not show %q:\n%s", tc.keys, tc.want, v)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				m.dirty = true
				_ = m.View()
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/view")
		})
	}
}

// journalDecisions approves n of the fleet's auth-required tasks that
// take an approval through svc, so that its journal holds n decisions.
func journalDecisions(b testing.TB, svc *approvals.Service, f *model.Fleet, n int) {
	b.Helper()
	q := svc.Queue(f, model.SortAge)
	for _, it := range q {
		if n == 0 {
			return
		}
		if it.Task.State != a2a.TaskStateAuthRequired {
			continue
		}
		d, err := svc.Prepare(it, approvals.Input{Kind: approvals.KindApprove})
		if err != nil { // the root of a chain: its end is in the queue too
			continue
		}
		if o := svc.Send(context.Background(), d); o.Err != nil {
			b.Fatal(o.Err)
		}
		n--
	}
	if n > 0 {
		b.Fatalf("%d decisions short", n)
	}
}

// BenchmarkBatchThenView is a watcher batch of one status change and
// the frame drawn after it, at 100,000 tasks, on the screens that redo
// work when the fleet changed: the tasks (counts, pinned selection),
// the tasks sorted by a column the model keeps no index for (re-sorted
// at most once a second: between re-sorts), the agents (counts,
// sparklines), the inbox (its queue, 28,572 waiting, rebuilt on the
// next frame) and the journal. One waiting task goes working and back,
// so that the inbox's queue changes on every batch.
func BenchmarkBatchThenView(b *testing.B) {
	f := model.NewFleet(model.Options{MaxTerminalPerAgent: 100_000})
	f.Apply(benchEvents(0, 100_000))
	svc, err := approvals.Open(approvals.Options{JournalPath: filepath.Join(b.TempDir(), "journal.jsonl"), Sender: benchSender{f},
		Approver: "ops@host", Now: func() time.Time { return testNow }})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { svc.Close() })
	views := inbox.Options{Sort: model.SortAge}
	i := 0 // across the runs: the fleet takes only news, each event newer
	for _, tc := range []struct {
		name string
		keys []string
	}{{"tasks", nil}, {"tasks-sort-status", []string{"T"}}, {"agents", []string{"3"}}, {"inbox", []string{"2"}}, {"journal", []string{"4"}}} {
		b.Run(tc.name, func(b *testing.B) {
			m, _ := newTestModel(b, Options{Fleet: f, Inbox: inbox.InboxFactory(svc, views), Journal: inbox.JournalFactory(svc, views)})
			sized(m, 200, 50)
			press(m, tc.keys...)
			_ = m.View() // the screen as it was before the batch (the inbox's first queue is built here)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				// Task 1 waits for input (benchStates): it goes on and back.
				st := a2a.TaskStateWorking
				if i%2 == 1 {
					st = a2a.TaskStateInputRequired
				}
				ev := taskEvent("agent-1", "task-1-0000-4000-8000", st, -time.Duration(i+1)*time.Microsecond, "step "+itoa(i))
				m.Update(eventsMsg{batch: []model.Event{ev}})
				_ = m.View()
				i++
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/frame")
		})
	}
}

// BenchmarkInboxBatchThenView is BenchmarkBatchThenView/inbox with a
// fleet as an operator would have it: 100,000 tasks, of which n wait on a
// person, the rest working; one waiting task goes on and back each batch.
func BenchmarkInboxBatchThenView(b *testing.B) {
	for _, n := range []int{100, 1_000, 10_000} {
		b.Run("waiting="+itoa(n), func(b *testing.B) {
			f := model.NewFleet(model.Options{MaxTerminalPerAgent: 100_000})
			evs := benchEvents(0, 100_000)
			for i := range evs {
				st := a2a.TaskStateWorking
				if i%(100_000/n) == 1 {
					st = a2a.TaskStateInputRequired
				}
				evs[i].Task.Status.State = st
			}
			f.Apply(evs)
			svc, err := approvals.Open(approvals.Options{JournalPath: filepath.Join(b.TempDir(), "journal.jsonl"), Sender: benchSender{f},
				Approver: "ops@host", Now: func() time.Time { return testNow }})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { svc.Close() })
			views := inbox.Options{Sort: model.SortAge}
			m, _ := newTestModel(b, Options{Fleet: f, Inbox: inbox.InboxFactory(svc, views)})
			sized(m, 200, 50)
			press(m, "2")
			if v := m.View(); !strings.Contains(v, itoa(n)+" waiting") {
				b.Fatalf("the inbox does not show %d waiting:\n%s", n, v)
			}
			b.ReportAllocs()
			b.ResetTimer()
			i := 0
			for b.Loop() {
				st := a2a.TaskStateWorking
				if i%2 == 1 {
					st = a2a.TaskStateInputRequired
				}
				ev := taskEvent("agent-1", "task-1-0000-4000-8000", st, -time.Duration(i+1)*time.Microsecond, "step "+itoa(i))
				m.Update(eventsMsg{batch: []model.Event{ev}})
				_ = m.View()
				i++
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/frame")
		})
	}
}

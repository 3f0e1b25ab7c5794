package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/model"
	"a2atop/ui/common"
	"a2atop/ui/tasks"
)

var benchStates = []a2a.TaskState{
	a2a.TaskStateWorking, a2a.TaskStateInputRequired, a2a.TaskStateCompleted,
	a2a.TaskStateSubmitted, a2a.TaskStateFailed, a2a.TaskStateAuthRequired, a2a.TaskStateCanceled,
}

// benchEvents are n snapshot events for new tasks across 100 agents, the
// i-th numbered from base.
func benchEvents(base, n int) []model.Event {
	evs := make([]model.Event, n)
	for i := range n {
		j := base + i
		evs[i] = taskEvent("agent-"+itoa(j%100), a2a.TaskID("task-"+itoa(j)+"-0000-4000-8000"),
			benchStates[j%len(benchStates)], time.Duration(j)*time.Millisecond,
			"step "+itoa(j)+": compiling, testing and reporting the results of the run")
	}
	return evs
}

// BenchmarkTasksView is one full View() of the tasks view at 200x50 with
// 100,000 tasks in the fleet (goal: under 2 ms).
func BenchmarkTasksView(b *testing.B) {
	f := model.NewFleet(model.Options{MaxTerminalPerAgent: 100_000})
	f.Apply(benchEvents(0, 100_000))
	m, _ := newTestModel(b, Options{Fleet: f})
	sized(m, 200, 50)
	if n := f.Len(); n != 100_000 {
		b.Fatalf("fleet holds %d tasks", n)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		m.dirty = true
		_ = m.View()
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/view")
}

// BenchmarkTasksUpdate is what a batch of one status change costs the
// dashboard before it draws, at 100,000 tasks: Fleet.Apply, then the
// panes' counts, the selections' new positions and the pages.
func BenchmarkTasksUpdate(b *testing.B) {
	f := model.NewFleet(model.Options{MaxTerminalPerAgent: 100_000})
	f.Apply(benchEvents(0, 100_000))
	m, _ := newTestModel(b, Options{Fleet: f})
	sized(m, 200, 50)
	press(m, "j", "j", "j", "tab", "j")
	i := 0
	for b.Loop() {
		// Tasks 0, 7, 14, ... are working: each one reports progress.
		j := (i * 7) % 100_000
		ev := taskEvent("agent-"+itoa(j%100), a2a.TaskID("task-"+itoa(j)+"-0000-4000-8000"),
			a2a.TaskStateWorking, -time.Duration(i+1)*time.Millisecond, "step "+itoa(i))
		m.Update(eventsMsg{batch: []model.Event{ev}})
		i++
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/batch")
}

// BenchmarkBurst sends 10,000 events at once into a channel of the
// watchers' default size (4096) and runs the dashboard's loop (wait,
// Update, View) until the screen shows them all: the time that takes and
// how many renders it cost (goal: under 100 ms, a handful of renders).
func BenchmarkBurst(b *testing.B) {
	for _, buf := range []int{4096, 10_000} {
		b.Run("buffer="+itoa(buf), func(b *testing.B) {
			const n = 10_000
			var total time.Duration
			var renders, batches int
			for i := range b.N {
				evs := benchEvents(i*n, n)
				f := fixtureFleet()
				base := f.Len()
				ch := make(chan model.Event, buf)
				m, _ := newTestModel(b, Options{Fleet: f, Events: ch})
				sized(m, 200, 50)
				m.View()
				m.renders = 0
				start := time.Now()
				go func() {
					for _, e := range evs {
						ch <- e
					}
				}()
				wait := m.waitEvents(0)
				for f.Len() < base+n {
					msg := wait().(eventsMsg)
					m.Update(msg)
					m.View()
					batches++
					wait = m.waitEvents(m.interval)
				}
				total += time.Since(start)
				renders += m.renders
				var _ tea.Model = m
			}
			b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "ms/burst")
			b.ReportMetric(float64(renders)/float64(b.N), "renders/burst")
			b.ReportMetric(float64(batches)/float64(b.N), "batches/burst")
			b.ReportMetric(float64(n*b.N)/total.Seconds(), "events/s")
		})
	}
}

// BenchmarkTasksViewSorted is one full View() of the tasks view at
// 200x50 with 100,000 tasks, sorted by a column: state (the model's
// indexes, one per state), id between re-sorts (the order kept), a
// column re-sorted for the frame after a batch of one status change
// (what a frame costs once a second while the fleet changes: the rows
// that changed are placed again), and id sorted anew for the frame (the
// frame after the sort key, a sort from scratch).
func BenchmarkTasksViewSorted(b *testing.B) {
	f := model.NewFleet(model.Options{MaxTerminalPerAgent: 100_000})
	f.Apply(benchEvents(0, 100_000))
	i := 0 // across the runs: the fleet takes only news, each event newer
	for _, tc := range []struct {
		name   string
		key    string
		resort bool // a batch, a second, then the frame
		anew   bool // sorted from scratch for the frame
	}{{"state", "S", false, false}, {"id", "I", false, false}, {"id-resorted", "I", true, false},
		{"status-resorted", "T", true, false}, {"hint-resorted", "H", true, false}, {"id-sorted-anew", "I", false, true}} {
		b.Run(tc.name, func(b *testing.B) {
			clk := newClock()
			m, _ := newTestModel(b, Options{Fleet: f, Now: clk.Now})
			sized(m, 200, 50)
			press(m, tc.key)
			_ = m.View()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				switch {
				case tc.resort:
					// Tasks 0, 7, 14, ... are working: one reports progress.
					j := (i * 7) % 100_000
					ev := taskEvent("agent-"+itoa(j%100), a2a.TaskID("task-"+itoa(j)+"-0000-4000-8000"),
						a2a.TaskStateWorking, -time.Duration(i+1)*time.Millisecond, "step "+itoa(i))
					m.Update(eventsMsg{batch: []model.Event{ev}})
					clk.add(tasks.ResortEvery)
					i++
				case tc.anew:
					resort(m)
				}
				m.dirty = true
				_ = m.View()
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/view")
		})
	}
}

// BenchmarkPicturesView is one full View() at 200x50 with 100,000 tasks
// across 100 agents of the screens that draw pictures: the agents view
// (a sparkline of the hour's events per listed agent, the selected
// agent's card with its own), the detail of a task with a timeline of
// states and a streamed artifact, and the tasks view with its header's
// stacked bar (BenchmarkTasksView). Goal: under 2 ms each.
func BenchmarkPicturesView(b *testing.B) {
	f := model.NewFleet(model.Options{MaxTerminalPerAgent: 100_000})
	f.Apply(benchEvents(0, 100_000))
	for _, tc := range []struct {
		name string
		keys []string
	}{{"agents", []string{"3"}}, {"detail", nil}} {
		b.Run(tc.name, func(b *testing.B) {
			m, _ := newTestModel(b, Options{Fleet: f})
			sized(m, 200, 50)
			var evs []model.Event
			for i := range 6000 { // an hour of events from every agent
				ev := taskEvent("agent-"+itoa(i%100), a2a.TaskID("task-"+itoa(i%100)+"-0000-4000-8000"), a2a.TaskStateWorking,
					time.Hour, "step")
				ev.At = testNow.Add(-time.Duration(i%60) * time.Minute)
				evs = append(evs, ev)
			}
			evs = append(evs, timelineEvents()...)
			m.Update(eventsMsg{batch: evs})
			press(m, tc.keys...)
			if tc.keys == nil { // the task with a timeline and a stream
				settle(m, m.request(common.OpenTaskMsg{Key: model.TaskKey{Agent: "test-runner", ID: "71e11e00-0000-4000-8000-00000000000c"}}))
				if !strings.Contains(m.View(), "streaming: 5 chunks") {
					b.Fatal("the detail does not show the timeline's task")
				}
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

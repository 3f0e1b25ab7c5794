package ui

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/approvals"
	"a2atop/model"
)

// fleetSender answers from a fleet's snapshots and takes every reply
// (the task goes on working): what the journal needs to record decisions
// without agents, for a benchmark.
type fleetSender struct{ f *model.Fleet }

func (s fleetSender) Get(_ context.Context, agent string, id a2a.TaskID, _ int, _ bool) (*a2a.Task, error) {
	t := s.f.Task(model.TaskKey{Agent: agent, ID: id})
	if t == nil {
		return nil, a2a.ErrTaskNotFound
	}
	c := *t.Snapshot
	return &c, nil
}

func (s fleetSender) Reply(_ context.Context, _ string, msg *a2a.Message) (*a2a.Task, error) {
	return &a2a.Task{ID: msg.TaskID, ContextID: msg.ContextID, Status: a2a.TaskStatus{State: a2a.TaskStateWorking}}, nil
}

// BenchmarkTasksUpdateFollowingTheJournal is BenchmarkTasksUpdate with the
// journal followed and 1,000 decided tasks the journal has not seen end:
// each batch also asks Service.Observations which of them the fleet shows
// in a new state (none here: they still show the prompt answered). It
// reports the batch and, apart, one Refresh on the clock with nothing new.
func BenchmarkTasksUpdateFollowingTheJournal(b *testing.B) {
	f := model.NewFleet(model.Options{MaxTerminalPerAgent: 100_000})
	f.Apply(benchEvents(0, 100_000))
	svc, err := approvals.Open(approvals.Options{JournalPath: filepath.Join(b.TempDir(), "journal.jsonl"),
		Sender: fleetSender{f}, Approver: "ops@bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer svc.Close()
	decided := 0
	for _, it := range svc.Queue(f, model.SortAge) {
		if decided == 1000 || !it.Actionable {
			continue
		}
		d, err := svc.Prepare(it, approvals.Input{Kind: approvals.KindReply, Text: "go on"})
		if err != nil {
			continue // an authorization: a reply does not answer it
		}
		if out := svc.Send(context.Background(), d); out.Result != approvals.ResultAccepted {
			b.Fatalf("send: %s %v", out.Result, out.Err)
		}
		decided++
	}
	m, _ := newTestModel(b, Options{Fleet: f, Approvals: svc})
	sized(m, 200, 50)
	press(m, "j", "j", "j", "tab", "j")
	i := 0
	b.ResetTimer()
	for b.Loop() {
		j := (i * 7) % 100_000
		ev := taskEvent("agent-"+itoa(j%100), a2a.TaskID("task-"+itoa(j)+"-0000-4000-8000"),
			a2a.TaskStateWorking, -time.Duration(i+1)*time.Millisecond, "step "+itoa(i))
		m.Update(eventsMsg{batch: []model.Event{ev}})
		i++
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/batch")
	b.ReportMetric(float64(decided), "decided")
	b.StopTimer()
	const refreshes = 200
	start := time.Now()
	for range refreshes {
		if _, err := svc.Refresh(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(time.Since(start).Microseconds())/refreshes, "µs/refresh")
}

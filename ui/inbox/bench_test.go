package inbox

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/approvals"
	"a2atop/model"
	"a2atop/ui/common"
	"a2atop/ui/theme"
)

// benchInbox is an inbox over a fleet of n interrupted tasks across 100
// agents.
func benchInbox(b *testing.B, n int) (*Inbox, *model.Fleet) {
	f := model.NewFleet(model.Options{})
	evs := make([]model.Event, n)
	for i := range n {
		at := t0.Add(-time.Duration(i) * time.Second)
		id := a2a.TaskID(fmt.Sprintf("task-%06d-0000-4000-8000", i))
		m := a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart(fmt.Sprintf("question %d: which branch?", i)))
		tk := &a2a.Task{ID: id, ContextID: "ctx", Status: a2a.TaskStatus{State: a2a.TaskStateInputRequired, Message: m, Timestamp: &at}}
		evs[i] = model.Event{Kind: model.EventTask, Agent: fmt.Sprintf("agent-%02d", i%100), Source: model.SourceSweep, At: at, Task: tk}
	}
	f.Apply(evs)
	svc, err := approvals.Open(approvals.Options{JournalPath: filepath.Join(b.TempDir(), "j.jsonl"), Sender: &fakeSender{}, Approver: "ops@host"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { svc.Close() })
	ctx := common.Context{Fleet: f, Theme: theme.New(theme.Options{Mode: theme.ModeDark}), Now: func() time.Time { return t0 }}
	m := NewInbox(ctx, svc, Options{Sort: model.SortAge})
	m.SetSize(200, 48)
	return m, f
}

// BenchmarkInboxView is one View() of the inbox with 10,000 tasks
// waiting.
func BenchmarkInboxView(b *testing.B) {
	m, _ := benchInbox(b, 10_000)
	for b.Loop() {
		_ = m.View()
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/view")
}

// BenchmarkInboxFleetChanged is what one batch costs the inbox (hidden or
// shown) with 10,000 tasks waiting: rebuilding the queue.
func BenchmarkInboxFleetChanged(b *testing.B) {
	m, _ := benchInbox(b, 10_000)
	for b.Loop() {
		m.Update(common.FleetChangedMsg{})
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/batch")
}

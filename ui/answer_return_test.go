package ui_test

import (
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/approvals"
	"a2atop/model"
	"a2atop/ui"
	"a2atop/ui/inbox"
	"a2atop/ui/internal/uitest"
	"a2atop/ui/theme"
)

// header is the view's first line (it names the screen shown).
func header(m *ui.Model) string {
	v := m.View()
	if i := strings.IndexByte(v, '\n'); i >= 0 {
		return v[:i]
	}
	return v
}

// TestAnAnswerFromTheDetailReturnsThere: a on the deploy's detail opens
// the approval; once it is sent, declined, or refused at once, the
// dashboard is back on the detail. It was left in the inbox. (The
// recording sender knows no task: the y is journaled, then refused by
// the check before sending, which is enough here.)
func TestAnAnswerFromTheDetailReturnsThere(t *testing.T) {
	for _, keys := range [][]string{{"y"}, {"esc"}} {
		var mu sync.Mutex
		now := time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)
		clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
		fleet := model.NewFleet(model.Options{})
		fleet.Apply([]model.Event{{Kind: model.EventTask, Agent: "deployer", Source: model.SourceSweep, At: now, Task: &a2a.Task{
			ID: "abfc4a03-0000-4000-8000-000000000001", ContextID: "ctx", Status: a2a.TaskStatus{State: a2a.TaskStateAuthRequired,
				Message: a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("approve deploy of 9f3c2e1 to staging?")), Timestamp: &now}}}})
		svc, err := approvals.Open(approvals.Options{JournalPath: filepath.Join(t.TempDir(), "journal.jsonl"), Sender: &recordingSender{},
			Approver: "ops@host", Now: clock, QuietPeriod: 500 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { svc.Close() })
		views := inbox.Options{Sort: model.SortAge}
		m := ui.New(ui.Options{Fleet: fleet, Output: io.Discard, Now: clock, Theme: theme.New(theme.Options{Mode: theme.ModeDark}),
			Inbox: inbox.InboxFactory(svc, views), Journal: inbox.JournalFactory(svc, views)})
		m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		send(m, uitest.Key("tab"))
		send(m, uitest.Key("enter")) // the deploy's detail
		detail := header(m)
		send(m, uitest.Key("a"))
		if !strings.Contains(m.View(), "Approve this request?") {
			t.Fatalf("a on the detail:\n%s", m.View())
		}
		mu.Lock()
		now = now.Add(time.Second)
		mu.Unlock()
		for _, k := range keys {
			send(m, uitest.Key(k))
		}
		if got := header(m); got != detail || !strings.Contains(detail, " task ") {
			t.Errorf("after %v: the header is %q, want the detail's %q\n%s", keys, got, detail, m.View())
		}
		if want := map[string]int{"y": 1, "esc": 0}[keys[0]]; len(svc.Journal()) != want {
			t.Errorf("after %v the journal holds %d decisions, want %d", keys, len(svc.Journal()), want)
		}
	}
}

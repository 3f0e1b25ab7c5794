package inbox

import (
	"a2atop/ui/internal/uitest"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
	"a2atop/ui/common"
)

// TestInboxSelectionStaysOnItsTask: an item arriving above the selected
// one, on the first row or any other, leaves the selection on its task.
func TestInboxSelectionStaysOnItsTask(t *testing.T) {
	fx := newFixture(t, false)
	m := newInbox(t, fx)
	m.View()
	first := m.selected().Key()
	older := snap("0ld0ld00-depl-4000-8000-000000000009", a2a.TaskStateAuthRequired, time.Hour,
		[]*a2a.Part{a2a.NewTextPart("approve deploy of 0ld to staging?")})
	res := fx.fleet.Apply([]model.Event{{Kind: model.EventTask, Agent: "deployer", Source: model.SourceSweep, At: t0, Task: older}})
	m.Update(common.FleetChangedMsg{Result: res})
	m.View()
	if got := m.selected().Key(); got != first || m.cursor != 1 {
		t.Fatalf("after an older item arrived the inbox selects %v at row %d, want %v at row 1", got, m.cursor, first)
	}
}

// TestJournalSelectionStaysOnItsEntry: entries are newest first, so a
// new decision comes in above the selected one; the selection stays on
// the entry it was on.
func TestJournalSelectionStaysOnItsEntry(t *testing.T) {
	fx := newFixture(t, false)
	seedJournal(t, fx)
	c := NewJournal(fx.ctx, fx.svc, Options{})
	c.SetSize(120, 38)
	j := c
	j.Update(uitest.Key("j"))
	was := j.selected().MessageID
	if err := fx.svc.NoteLeft("deployer", idDeploy, a2a.TaskStateAuthRequired, a2a.TaskStateWorking, "moved on"); err != nil {
		t.Fatal(err)
	}
	j.Update(common.TickMsg{Now: t0})
	if got := j.selected().MessageID; got != was || !strings.Contains(j.View(), "▸") {
		t.Fatalf("after a new entry the journal selects %q, want %q", got, was)
	}
}

package inbox

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"a2atop/approvals"
	"a2atop/ui/common"
	"a2atop/ui/internal/uitest"
)

// sentAt is the "at" of the data part of a sent approve or deny.
func sentAt(t *testing.T, fx *fixture, i int) time.Time {
	t.Helper()
	fx.snd.mu.Lock()
	defer fx.snd.mu.Unlock()
	if i >= len(fx.snd.sent) {
		t.Fatalf("%d messages sent, want message %d", len(fx.snd.sent), i+1)
	}
	for _, p := range fx.snd.sent[i].Parts {
		if d, ok := p.Data().(map[string]any); ok {
			at, err := time.Parse(time.RFC3339Nano, d["at"].(string))
			if err != nil {
				t.Fatal(err)
			}
			return at
		}
	}
	t.Fatalf("message %d has no data part", i+1)
	return time.Time{}
}

// journalAts are the "at" of each decision record in the journal file,
// by messageId.
func journalAts(t *testing.T, fx *fixture) map[string]time.Time {
	t.Helper()
	b, err := os.ReadFile(fx.svc.Path())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]time.Time{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r struct {
			Type, ID string
			At       time.Time
		}
		if json.Unmarshal([]byte(l), &r) == nil && r.Type == "decision" {
			out[r.ID] = r.At
		}
	}
	return out
}

// TestTheDecisionTimeIsTheConfirmation: a at 20:00:00, y ten seconds
// later: the journal's "at" and the "at" sent to the agent are the y's,
// not the moment the dialog opened (both said 20:00:00 before).
func TestTheDecisionTimeIsTheConfirmation(t *testing.T) {
	fx := newFixture(t, false)
	var c common.Component = newInbox(t, fx)
	c, _ = sendKeys(c, "j", "a")
	fx.clk.add(10 * time.Second)
	confirmedAt := fx.clk.Now().UTC()
	c, _ = sendKeys(c, "y")
	if got := sentAt(t, fx, 0); !got.Equal(confirmedAt) {
		t.Errorf("the approve carries at %s, want the confirmation's %s (the dialog opened at %s)", got, confirmedAt, t0)
	}
	for id, at := range journalAts(t, fx) {
		if !at.Equal(confirmedAt) {
			t.Errorf("the journal records decision %s at %s, want %s", id, at, confirmedAt)
		}
	}
	if v := c.View(); strings.Contains(v, "Approve this request?") {
		t.Fatalf("the dialog stayed open:\n%s", v)
	}
}

// TestABatchDecisionTimeIsEachSend: an answer for many stamps each task
// at its own send, after the y.
func TestABatchDecisionTimeIsEachSend(t *testing.T) {
	fx := newFixture(t, false)
	var c common.Component = newInbox(t, fx)
	c, _ = sendKeys(c, "j", "space", "j", "j", "j", "space", "a")
	m := c.(*Inbox)
	if m.mode != modeBatch || len(m.plan.plans) != 2 {
		t.Fatalf("mode %d, plan %+v, said %q", m.mode, m.plan, fx.said())
	}
	fx.clk.add(10 * time.Second)
	_, cmd := c.Update(uitest.Key("y"))
	batch, ok := cmd().(tea.BatchMsg)
	if !ok {
		t.Fatalf("y returned %T, want the sends", cmd())
	}
	var want []time.Time
	for _, send := range batch {
		fx.clk.add(3 * time.Second)
		want = append(want, fx.clk.Now().UTC())
		if out, ok := send().(SentMsg); !ok || out.Outcome.Result != approvals.ResultAccepted {
			t.Fatalf("send: %+v", out)
		}
	}
	if len(want) != 2 {
		t.Fatalf("%d sends, want 2", len(want))
	}
	for i, w := range want {
		if got := sentAt(t, fx, i); !got.Equal(w) {
			t.Errorf("task %d carries at %s, want its own send's %s", i+1, got, w)
		}
	}
	ats := journalAts(t, fx)
	if len(ats) != 2 {
		t.Fatalf("journal decisions %v", ats)
	}
	for _, w := range want {
		found := false
		for _, at := range ats {
			found = found || at.Equal(w)
		}
		if !found {
			t.Errorf("no decision journaled at %s: %v", w, ats)
		}
	}
}

package inbox

import (
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
	"a2atop/ui/common"
)

// TestEscKeepsTheDraft: esc in the reply editor keeps what was typed for
// that task, says so, and marks the row; r opens it again; only ctrl+x
// (on purpose) or the send throws it away. esc used to drop the draft
// without a word.
func TestEscKeepsTheDraft(t *testing.T) {
	fx := newFixture(t, false)
	m := newInbox(t, fx)
	var c common.Component = m
	c, _ = sendKeys(c, "j", "j", "r") // the code-reviewer's question
	c = typeText(c, "release/1.4")
	c, _ = sendKeys(c, "esc")
	if said := fx.said(); m.mode != modeList || !strings.Contains(said, "draft kept") {
		t.Fatalf("esc with a draft: mode %d, said %q", m.mode, said)
	}
	row := ""
	for _, l := range strings.Split(c.View(), "\n") {
		if strings.Contains(l, "code-reviewer") && strings.Contains(l, "input-required") {
			row = l
			break
		}
	}
	if !strings.Contains(row, "draft") {
		t.Fatalf("the row of the task with a draft is %q", row)
	}
	c, _ = sendKeys(c, "k", "r") // elsewhere, then back on the code-reviewer
	if m.target.ID == idReview {
		t.Fatal("r opened the code-reviewer's editor from another row")
	}
	c, _ = sendKeys(c, "esc", "j", "r")
	if got := m.ed.text.Value(); m.target.ID != idReview || got != "release/1.4" {
		t.Fatalf("r on the task again: editor on %v holds %q, want the draft", m.target, got)
	}
	c, _ = sendKeys(c, "ctrl+x")
	if said := fx.said(); m.mode != modeList || !strings.Contains(said, "draft discarded") {
		t.Fatalf("ctrl+x: mode %d, said %q", m.mode, said)
	}
	c, _ = sendKeys(c, "r")
	if got := m.ed.text.Value(); got != "" {
		t.Fatalf("after ctrl+x the editor holds %q", got)
	}
	// A draft whose task leaves the inbox is dropped, and the journal
	// says nothing was sent.
	c = typeText(c, "main")
	c, _ = sendKeys(c, "esc", "k") // kept, and the cursor elsewhere
	fx.said()
	at := t0.Add(1)
	res := fx.fleet.Apply([]model.Event{{Kind: model.EventStatus, Agent: "code-reviewer", At: at, Status: &a2a.TaskStatusUpdateEvent{
		TaskID: idReview, Status: a2a.TaskStatus{State: a2a.TaskStateCompleted, Timestamp: &at}}}})
	c, cmd := c.Update(common.FleetChangedMsg{Result: res, Version: fx.fleet.Version()})
	for _, msg := range runNoTick(cmd) {
		c, _ = c.Update(msg)
	}
	if said := fx.said(); !strings.Contains(said, "kept draft is dropped") || len(m.drafts) != 0 {
		t.Fatalf("the task with a draft left: said %q, drafts %v", said, m.drafts)
	}
	noted := false
	for _, e := range fx.svc.Journal() {
		for _, s := range e.States {
			noted = noted || e.TaskID == idReview && strings.Contains(s.Note, "kept draft")
		}
	}
	if !noted {
		t.Error("the journal does not say the kept draft was dropped")
	}
}

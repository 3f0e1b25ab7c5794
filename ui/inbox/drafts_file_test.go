package inbox

import (
	"strings"
	"testing"

	"a2atop/approvals"
	"a2atop/model"
	"a2atop/ui/common"
)

// reopen is the inbox a dashboard started again on the same state
// directory builds: a new Service on the journal, a new inbox.
func reopen(t *testing.T, fx *fixture) (*Inbox, *approvals.Service) {
	t.Helper()
	svc, err := approvals.Open(approvals.Options{JournalPath: fx.svc.Path(), Sender: fx.snd, Approver: "ops@host", Now: fx.clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	m := NewInbox(fx.ctx, svc, Options{Sort: model.SortAge})
	m.SetSize(120, 38)
	m.Update(common.ShownMsg{})
	return m, svc
}

// TestEveryWayOutKeepsTheDraft: a reply being written outlives the
// dashboard whichever way it ends: quitting with the editor open
// (ctrl+c: the root runs Quitting before it quits), a signal (the
// clock kept it already), esc. The dashboard started again restores it
// when the task waits at the same prompt; sending or discarding it ends
// it for good. ctrl+c lost the typed text.
func TestEveryWayOutKeepsTheDraft(t *testing.T) {
	fx := newFixture(t, false)
	m := newInbox(t, fx)
	var c common.Component = m
	c, _ = sendKeys(c, "j", "j", "r") // the code-reviewer's question
	c = typeText(c, "release/1.4")
	for _, msg := range runNoTick(m.Quitting()) { // ctrl+c
		c, _ = c.Update(msg)
	}
	if said := fx.said(); strings.Contains(said, "kept here only") {
		t.Fatalf("keeping the draft failed: %s", said)
	}
	again, _ := reopen(t, fx)
	c2, _ := sendKeys(again, "j", "j", "r")
	if got := again.ed.text.Value(); again.target != review || got != "release/1.4" {
		t.Fatalf("started again, r on the task: editor on %v holds %q, want the draft kept at ctrl+c", again.target, got)
	}
	// A signal: the clock kept what was typed since.
	c2 = typeText(c2, " please")
	_, cmd := c2.Update(common.TickMsg{})
	for _, msg := range runNoTick(cmd) {
		c2.Update(msg)
	}
	third, _ := reopen(t, fx)
	sendKeys(third, "j", "j", "r")
	if got := third.ed.text.Value(); got != "release/1.4 please" {
		t.Fatalf("after the clock, started again: the editor holds %q", got)
	}
	// Discarded on purpose: gone for good.
	sendKeys(third, "ctrl+x")
	fourth, svc := reopen(t, fx)
	if ds, err := svc.Drafts(); err != nil || len(ds) != 0 {
		t.Fatalf("after ctrl+x the drafts file holds %+v (%v)", ds, err)
	}
	sendKeys(fourth, "j", "j", "r")
	if got := fourth.ed.text.Value(); got != "" {
		t.Fatalf("after ctrl+x, started again: the editor holds %q", got)
	}
	_ = c
}

// TestARestoredDraftWhoseTaskMovedOnIsDropped: a draft kept for a task
// that, when the dashboard starts again, no longer waits is dropped,
// saying so; nothing is sent.
func TestARestoredDraftWhoseTaskMovedOnIsDropped(t *testing.T) {
	fx := newFixture(t, false)
	if err := fx.svc.KeepDraft(approvals.Draft{Agent: review.Agent, TaskID: review.ID, Prompt: "an older prompt", Text: "main"}); err != nil {
		t.Fatal(err)
	}
	m, svc := reopen(t, fx)
	for _, msg := range runNoTick(m.tick()) {
		m.Update(msg)
	}
	if said := fx.said(); !strings.Contains(said, "the draft kept for code-reviewer · 7d2a9e44 is dropped") {
		t.Errorf("said %q", said)
	}
	if _, ok := m.drafts[review]; ok {
		t.Error("the draft of an older prompt was restored")
	}
	if ds, err := svc.Drafts(); err != nil || len(ds) != 0 {
		t.Errorf("the stale draft stays in the file: %+v (%v)", ds, err)
	}
	if len(fx.snd.sent) != 0 {
		t.Errorf("%d messages sent", len(fx.snd.sent))
	}
}

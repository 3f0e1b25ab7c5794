package inbox

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
	"a2atop/ui/common"
)

// footnote is what a component writes at the start of the footer, and
// whether it is being edited ("" when it writes nothing there).
func footnote(c common.Component, w int) (string, bool) {
	f, ok := c.(common.Footnoter)
	if !ok {
		return "", false
	}
	return f.Footnote(w)
}

// TestInboxFilterTakesWhatIsTyped: / opens the inbox's filter and what
// is typed after it filters the queue; no key typed into it reaches the
// list's action keys. In the inbox / did nothing and "/dep" fired d, the
// deny.
func TestInboxFilterTakesWhatIsTyped(t *testing.T) {
	fx := newFixture(t, false)
	var evs []model.Event
	for i := range 32 {
		id := a2a.TaskID(fmt.Sprintf("%08x-xfer-4000-8000-%012d", 0x7a000000+i, i))
		tk := snap(id, a2a.TaskStateAuthRequired, time.Duration(i)*time.Second,
			[]*a2a.Part{a2a.NewTextPart(fmt.Sprintf("approve transfer #%d of 120 EUR?", 4400+i))})
		evs = append(evs, model.Event{Kind: model.EventTask, Agent: "payments", Source: model.SourceSweep, At: t0, Task: tk})
	}
	fx.fleet.Apply(evs)
	m := newInbox(t, fx)
	var c common.Component = m
	c, _ = sendKeys(c, "/")
	if !m.Capturing() {
		t.Fatal("/ did not open a filter in the inbox")
	}
	c = typeText(c, "dep")
	if m.mode != modeList || fx.said() != "" {
		t.Fatalf("typing dep into the filter reached the list (mode %d)", m.mode)
	}
	if note, editing := footnote(c, 120); !editing || !strings.Contains(note, "/dep") || !strings.Contains(note, "inbox") {
		t.Fatalf("the filter line %q (editing %v) does not show /dep and what it filters", note, editing)
	}
	v := c.View()
	if strings.Contains(v, "Which branch") || !strings.Contains(v, "approve deploy of 9f3c2e1") {
		t.Fatalf("/dep shows:\n%s", v)
	}
	c, _ = sendKeys(c, "enter")
	if m.Capturing() {
		t.Fatal("enter did not keep the filter")
	}
	if note, _ := footnote(c, 120); !strings.Contains(note, "/dep") || !strings.Contains(note, "inbox") {
		t.Fatalf("the kept filter line %q", note)
	}
	// esc clears it; with 30+ waiting, /4412 finds transfer #4412.
	c, _ = sendKeys(c, "esc", "/")
	c = typeText(c, "4412")
	c, _ = sendKeys(c, "enter")
	if it := m.selected(); it == nil || !strings.Contains(it.Task.Text, "#4412") || len(m.items) != 1 {
		t.Fatalf("/4412 selects %v among %d items", it, len(m.items))
	}
	if !strings.Contains(c.View(), "approve transfer #4412") {
		t.Fatalf("/4412 does not show transfer #4412:\n%s", c.View())
	}
	// Free text, agent:, state: and class:, as in the tasks view.
	for _, tc := range []struct {
		filter string
		n      int
	}{{"agent:code", 1}, {"state:input-required", 1}, {"class:interrupted agent:payments", 32}, {"class:bogus", 0}} {
		c, _ = sendKeys(c, "esc", "/")
		c = typeText(c, tc.filter)
		c, _ = sendKeys(c, "enter")
		if len(m.items) != tc.n {
			t.Errorf("/%s: %d items, want %d", tc.filter, len(m.items), tc.n)
		}
	}
}

// TestInboxFilterKeepsChainsWhole: a chain shows whole when one of its
// tasks matches, so the task that takes the answer is there.
func TestInboxFilterKeepsChainsWhole(t *testing.T) {
	fx := newFixture(t, false)
	var c common.Component = newInbox(t, fx)
	c, _ = sendKeys(c, "/")
	c = typeText(c, "planner")
	v := c.View()
	if !strings.Contains(v, "planner") || !strings.Contains(v, "└ deployer") || strings.Contains(v, "code-reviewer") {
		t.Fatalf("/planner shows:\n%s", v)
	}
}

// TestJournalFilter: / filters the journal with the same syntax.
func TestJournalFilter(t *testing.T) {
	fx := newFixture(t, false)
	seedJournal(t, fx)
	var c common.Component = NewJournal(fx.ctx, fx.svc, Options{})
	c.SetSize(120, 38)
	j := c.(*Journal)
	all := len(j.entries)
	c, _ = sendKeys(c, "/")
	if !j.Capturing() {
		t.Fatal("/ did not open a filter in the journal")
	}
	c = typeText(c, "deadbee")
	c, _ = sendKeys(c, "enter")
	if v := c.View(); len(j.entries) != 1 || !strings.Contains(v, "deny") || strings.Contains(v, "approve ") {
		t.Fatalf("/deadbee keeps %d of %d entries:\n%s", len(j.entries), all, v)
	}
	if note, _ := footnote(c, 120); !strings.Contains(note, "journal") {
		t.Fatalf("the filter line %q does not say it filters the journal", note)
	}
	for _, tc := range []struct {
		filter string
		n      int
	}{{"agent:code", 1}, {"approved", 1}, {"state:auth", 2}, {"refused", 1}} {
		c, _ = sendKeys(c, "esc", "/")
		c = typeText(c, tc.filter)
		c, _ = sendKeys(c, "enter")
		if len(j.entries) != tc.n {
			t.Errorf("/%s: %d entries, want %d", tc.filter, len(j.entries), tc.n)
		}
	}
}

// TestInboxFilterAgentTypoSaysSo: agent:nosuch in the inbox's filter is
// an error naming the fleet's agents, in the filter's line and the
// empty queue, as on the tasks screen: it passed as an empty inbox.
func TestInboxFilterAgentTypoSaysSo(t *testing.T) {
	fx := newFixture(t, false)
	var c common.Component = newInbox(t, fx)
	c, _ = sendKeys(c, "/")
	c = typeText(c, "agent:nosuch")
	c, _ = sendKeys(c, "enter")
	note, _ := footnote(c, 160)
	if v := c.View(); !strings.Contains(note+v, "agent:nosuch names no agent") || !strings.Contains(note+v, "deployer") {
		t.Errorf("/agent:nosuch in the inbox: footer %q, view:\n%s", note, v)
	}
}

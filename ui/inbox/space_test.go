package inbox

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
	"a2atop/ui/common"
)

// withTransfers adds n one-line approvals to the fixture's fleet.
func withTransfers(fx *fixture, n int) {
	var evs []model.Event
	for i := range n {
		id := a2a.TaskID(fmt.Sprintf("%08x-xfer-4000-8000-%012d", 0x7a000000+i, i))
		tk := snap(id, a2a.TaskStateAuthRequired, time.Duration(i)*time.Second,
			[]*a2a.Part{a2a.NewTextPart(fmt.Sprintf("approve transfer #%d?", 4400+i))})
		evs = append(evs, model.Event{Kind: model.EventTask, Agent: "payments", Source: model.SourceSweep, At: t0, Task: tk})
	}
	fx.fleet.Apply(evs)
}

// rowsShown counts the queue rows a view draws (they end in "?" or name
// what they wait on) and whether it says only part of the queue shows.
func rowsShown(v string) (int, bool) {
	n := 0
	for _, l := range strings.Split(v, "\n") {
		row := strings.HasPrefix(l, "  ") || strings.HasPrefix(l, "▸ ")
		if row && (strings.Contains(l, " auth-required ") || strings.Contains(l, " input-required ")) {
			n++
		}
	}
	return n, rangeLine.MatchString(v)
}

// rangeLine is the line under a queue that does not show whole.
var rangeLine = regexp.MustCompile(`(?m)^  \d+–\d+ of \d+$`)

// blankTail is how many of the h lines a view leaves blank at its end.
func blankTail(v string, h int) int {
	lines := strings.Split(v, "\n")
	n := h - len(lines)
	for i := len(lines) - 1; i >= 0 && strings.TrimSpace(lines[i]) == ""; i-- {
		n++
	}
	return n
}

// TestInboxListTakesTheRowsTheQuestionLeaves: the queue takes the lines
// the question under it does not need. At 200x50 the inbox showed 16 of
// 32 items above 30 empty lines.
func TestInboxListTakesTheRowsTheQuestionLeaves(t *testing.T) {
	for _, sz := range [][2]int{{200, 48}, {120, 38}} {
		fx := newFixture(t, false)
		withTransfers(fx, 28) // 32 waiting
		m := newInbox(t, fx)
		m.SetSize(sz[0], sz[1])
		v := m.View()
		n, cut := rowsShown(v)
		blank := blankTail(v, sz[1])
		if cut && blank > 0 || n < min(32, sz[1]-16) {
			t.Errorf("at %dx%d the inbox shows %d rows (cut %v) above %d blank lines:\n%s", sz[0], sz[1], n, cut, blank, v)
		}
	}
}

// TestEditorLeavesNoLineBlankWhileTheListIsCut: with the reply editor
// open at 80x24 the list shrank to 3 rows while 5 lines stayed blank.
func TestEditorLeavesNoLineBlankWhileTheListIsCut(t *testing.T) {
	fx := newFixture(t, false)
	withTransfers(fx, 6) // 10 waiting
	m := newInbox(t, fx)
	m.SetSize(80, 22)
	var c common.Component = m
	c, _ = sendKeys(c, "G", "r")
	if m.mode != modeEditor {
		t.Fatal("r did not open the editor")
	}
	v := c.View()
	n, cut := rowsShown(v)
	if blank := blankTail(v, 22); cut && blank > 0 || n < 5 {
		t.Errorf("with the editor open at 80x24: %d rows (cut %v), %d blank lines:\n%s", n, cut, blank, v)
	}
	for _, want := range []string{"approve transfer #4400?", "Text", "JSON data"} {
		if !strings.Contains(v, want) {
			t.Errorf("the editor view lacks %q:\n%s", want, v)
		}
	}
}

package common

import (
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"

	"a2atop/model"
	"a2atop/ui/theme"
)

// TestResultsWrapWhatTheAgentSaid: an outcome's words too long for the
// row go on under it, so that their end ("nothing was sent") shows at
// 80 columns; nothing is cut without an ellipsis and no line is wider
// than the list; a row that does not fit whole is counted as more.
func TestResultsWrapWhatTheAgentSaid(t *testing.T) {
	th := theme.New(theme.Options{Mode: theme.ModeDark})
	keys := []model.TaskKey{{Agent: "deployer", ID: "398e71f0-0000"}, {Agent: "deployer", ID: "58f8a697-0000"}}
	r := NewResults("approve", keys)
	r.Set(keys[0], Refused, "the task moved on before the reply was sent; nothing was sent (now working)")
	r.Set(keys[1], Sent, "the agent took the message (task now working)")
	v := r.View(th, DefaultResultKeys(), 80, 20)
	if !strings.Contains(v, "nothing was sent (now working)") {
		t.Fatalf("the end of the refusal is cut:\n%s", v)
	}
	for _, l := range strings.Split(v, "\n") {
		if lipgloss.Width(l) > 80 {
			t.Errorf("line wider than 80: %q", l)
		}
	}
	long := strings.Repeat("the agent said a great deal about it ", 10)
	r.Set(keys[0], Refused, long)
	v = r.View(th, DefaultResultKeys(), 80, 20)
	if !strings.Contains(v, "…") || strings.Count(v, "the agent said") > 6 {
		t.Fatalf("words longer than two lines are not cut with an ellipsis:\n%s", v)
	}
	if v := r.View(th, DefaultResultKeys(), 80, 6); !strings.Contains(v, "1 more") {
		t.Fatalf("a row that does not fit is not counted:\n%s", v)
	}
}

package inbox

import (
	"strings"
	"testing"

	"a2atop/ui/common"
	"a2atop/ui/internal/uitest"
)

func TestEditorLeavesTheQuestionTheSpareLines(t *testing.T) {
	fx := newFixture(t, false)
	m := newInbox(t, fx)
	m.SetSize(80, 22) // an 80x24 terminal
	var c common.Component = m
	c, _ = sendKeys(c, "j", "j") // the code-reviewer's question: text, data, file
	c, _ = sendKeys(c, "r")
	v := c.View()
	uitest.CheckFrame(t, v, 80, 22, false)
	for _, want := range []string{"Which branch should I compare against?", `"choices": [`, `"release/1.4"`, "diff.patch", "Text", "JSON data"} {
		if !strings.Contains(v, want) {
			t.Errorf("with the editor open at 80x24 the view lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "enter: detail") {
		t.Errorf("the editor takes enter, yet the view offers it for the detail:\n%s", v)
	}
}

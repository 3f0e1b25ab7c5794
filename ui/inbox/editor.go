package inbox

import (
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/textarea"
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/approvals"
	"a2atop/ui/theme"
)

// editor is the reply editor: a text field and a JSON data field; tab
// switches between them, either or both are sent. The JSON is validated
// as it is typed and the error shown under it.
type editor struct {
	text, data textarea.Model
	onData     bool
	err        string // the JSON error, in place; "" when valid or empty
}

func newTextarea(placeholder string) textarea.Model {
	ta := textarea.New()
	ta.Placeholder = placeholder
	ta.ShowLineNumbers = false
	ta.Prompt = "│ "
	ta.CharLimit = 64 << 10
	ta.Cursor.SetMode(cursor.CursorStatic)
	return ta
}

func newEditor() editor {
	e := editor{text: newTextarea("reply text (optional when you send data)"), data: newTextarea(`JSON data, e.g. {"branch": "main"} (optional)`)}
	e.text.Focus()
	return e
}

// setWidth gives both fields the width; the inbox's layout sets their
// height as it draws.
func (e *editor) setWidth(w int) {
	e.text.SetWidth(max(w-2, 10))
	e.data.SetWidth(max(w-2, 10))
}

// setFieldHeight gives each field fh lines.
func (e *editor) setFieldHeight(fh int) {
	if e.text.Height() != fh {
		e.text.SetHeight(fh)
	}
	if e.data.Height() != fh {
		e.data.SetHeight(fh)
	}
}

// toggle moves the focus between text and data.
func (e *editor) toggle() {
	e.onData = !e.onData
	if e.onData {
		e.text.Blur()
		e.data.Focus()
	} else {
		e.data.Blur()
		e.text.Focus()
	}
}

// update types into the focused field.
func (e *editor) update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	if e.onData {
		e.data, cmd = e.data.Update(msg)
		e.validate()
	} else {
		e.text, cmd = e.text.Update(msg)
	}
	return cmd
}

// validate checks the JSON field in place.
func (e *editor) validate() {
	e.err = ""
	if s := e.data.Value(); strings.TrimSpace(s) != "" {
		if _, err := approvals.ParseJSON(s); err != nil {
			e.err = err.Error()
		}
	}
}

// draft is a reply written and kept for a task, and the task's state
// when it was written.
type draft struct {
	text, data string
	from       a2a.TaskState
	prompt     string // the prompt it answers
}

// draft is what the fields hold, written while the task was in state from
// and asked prompt.
func (e *editor) draft(from a2a.TaskState, prompt string) draft {
	return draft{text: e.text.Value(), data: e.data.Value(), from: from, prompt: prompt}
}

// restore puts a kept draft back in the fields.
func (e *editor) restore(d draft) {
	e.text.SetValue(d.text)
	e.data.SetValue(d.data)
	e.validate()
}

// dirty reports whether anything was typed (a draft worth noting if the
// task leaves the inbox).
func (e *editor) dirty() bool {
	return strings.TrimSpace(e.text.Value()) != "" || strings.TrimSpace(e.data.Value()) != ""
}

// view draws the two fields with their labels and the JSON error.
func (e *editor) view(th *theme.Theme, w int) string {
	label := func(s string, on bool) string {
		if on {
			return th.Prompt.Render("▸ " + s)
		}
		return th.Label.Render("  " + s)
	}
	var b strings.Builder
	b.WriteString(label("Text", !e.onData) + "\n")
	b.WriteString(e.text.View() + "\n")
	b.WriteString(label("JSON data", e.onData) + "\n")
	b.WriteString(e.data.View() + "\n")
	b.WriteString(e.statusLine(th, w))
	return b.String()
}

// statusLine is what is under the fields: the JSON error in place, "valid
// JSON", or the keys.
func (e *editor) statusLine(th *theme.Theme, w int) string {
	switch {
	case e.err != "":
		return th.Error.Render(wrapText("✗ "+e.err, w))
	case strings.TrimSpace(e.data.Value()) != "":
		return th.OK.Render("✓ valid JSON")
	}
	return th.Muted.Render("tab: text/json · ctrl+s: send… · ctrl+e: $EDITOR · esc: keep the draft · ctrl+x: discard it")
}

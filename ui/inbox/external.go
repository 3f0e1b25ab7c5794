package inbox

import (
	"os"
	"os/exec"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// Long replies are written in the person's own editor, as lazygit does:
// ctrl+e writes the focused field to a temporary file (0600) in a
// tea.Cmd, the program hands the terminal to $VISUAL, else $EDITOR,
// else vi (tea.ExecProcess), and the file read back when the editor
// exits becomes the field. The file is removed either way.

// externalReadyMsg says the field was written to path for the editor.
type externalReadyMsg struct {
	owner *editor // the editor that asked: every screen gets the answer
	path  string
	data  bool // the JSON field, not the text
	err   error
}

// externalDoneMsg is the field as the editor left it.
type externalDoneMsg struct {
	owner *editor
	text  string
	data  bool
	err   error
}

// editorCommand is the person's editor and its arguments.
func editorCommand() []string {
	for _, env := range []string{"VISUAL", "EDITOR"} {
		if f := strings.Fields(os.Getenv(env)); len(f) > 0 {
			return f
		}
	}
	return []string{"vi"}
}

// openExternal writes the focused field to a temporary file, in a Cmd.
func (e *editor) openExternal() tea.Cmd {
	text, data, owner := e.text.Value(), e.onData, e
	if data {
		text = e.data.Value()
	}
	return func() tea.Msg {
		f, err := os.CreateTemp("", "a2atop-reply-*.txt")
		if err != nil {
			return externalReadyMsg{owner: owner, err: err}
		}
		_, err = f.WriteString(text)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return externalReadyMsg{owner: owner, path: f.Name(), data: data, err: err}
	}
}

// runExternal hands the terminal to the editor on the file, and reads
// the file back when it exits.
func runExternal(msg externalReadyMsg) tea.Cmd {
	args := editorCommand()
	cmd := exec.Command(args[0], append(args[1:], msg.path)...)
	return tea.ExecProcess(cmd, func(err error) tea.Msg {
		defer os.Remove(msg.path)
		if err != nil {
			return externalDoneMsg{owner: msg.owner, data: msg.data, err: err}
		}
		b, err := os.ReadFile(msg.path)
		return externalDoneMsg{owner: msg.owner, text: strings.TrimRight(string(b), "\n"), data: msg.data, err: err}
	})
}

// external handles the editor's messages for the fields of e; it
// reports whether msg was one of them, and says what failed.
func (e *editor) external(msg tea.Msg, warn func(string)) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case externalReadyMsg:
		if msg.owner != e {
			return nil, false
		}
		if msg.err != nil {
			os.Remove(msg.path)
			warn("the editor could not be opened: " + msg.err.Error())
			return nil, true
		}
		return runExternal(msg), true
	case externalDoneMsg:
		if msg.owner != e {
			return nil, false
		}
		if msg.err != nil {
			warn("the editor ended with an error; the field is as it was: " + msg.err.Error())
			return nil, true
		}
		if msg.data {
			e.data.SetValue(msg.text)
			e.validate()
		} else {
			e.text.SetValue(msg.text)
		}
		return nil, true
	}
	return nil, false
}

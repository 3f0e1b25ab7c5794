// Package uitest holds what the ui packages' tests share: key messages by
// name, running a Cmd to its messages, and taking a teatest frame for a
// golden file. Only tests import it.
package uitest

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"a2atop/model"
)

// keyTypes are the named keys tests press; any other name is typed as
// runes.
var keyTypes = map[string]tea.KeyType{
	"enter":     tea.KeyEnter,
	"esc":       tea.KeyEsc,
	"tab":       tea.KeyTab,
	"shift+tab": tea.KeyShiftTab,
	"up":        tea.KeyUp,
	"down":      tea.KeyDown,
	"pgdown":    tea.KeyPgDown,
	"pgup":      tea.KeyPgUp,
	"ctrl+c":    tea.KeyCtrlC,
	"ctrl+s":    tea.KeyCtrlS,
	"backspace": tea.KeyBackspace,
}

// Key builds the tea.KeyMsg a terminal sends for a key name ("enter",
// "ctrl+s", "space", or text typed as runes).
func Key(s string) tea.KeyMsg {
	if s == "space" {
		return tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
	}
	if t, ok := keyTypes[s]; ok {
		return tea.KeyMsg{Type: t}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

// Run executes a Cmd and the Cmds of a batch, giving up on those that do
// not answer within 300 ms (ticks, the event wait), and returns the
// messages they produced.
func Run(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	ch := make(chan tea.Msg, 1)
	go func() { ch <- cmd() }()
	var msg tea.Msg
	select {
	case msg = <-ch:
	case <-time.After(300 * time.Millisecond):
		return nil
	}
	if b, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range b {
			out = append(out, Run(c)...)
		}
		return out
	}
	if msg == nil {
		return nil
	}
	return []tea.Msg{msg}
}

// Frame waits until the program's output contains wait, quits it and
// returns the final View, checked to fit w×h (at most h lines; exactly h
// when exact).
func Frame(t *testing.T, tm *teatest.TestModel, wait string, w, h int, exact bool) string {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte(wait))
	}, teatest.WithDuration(5*time.Second), teatest.WithCheckInterval(5*time.Millisecond))
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	out := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).View()
	CheckFrame(t, out, w, h, exact)
	return out
}

// CheckFrame fails the test when a frame is wider than w cells or taller
// than h lines (or, when exact, not h lines).
func CheckFrame(t *testing.T, out string, w, h int, exact bool) {
	t.Helper()
	lines := strings.Split(out, "\n")
	if len(lines) > h || exact && len(lines) != h {
		t.Errorf("frame has %d lines, want %s%d", len(lines), map[bool]string{true: "", false: "at most "}[exact], h)
	}
	for i, l := range lines {
		if n := len([]rune(l)); n > w {
			t.Errorf("line %d is %d cells wide (> %d): %q", i, n, w, l)
		}
	}
}

// TaskEvent is a stream's snapshot of a task of agent in state, updated
// ago before now, with text (naming refs) as its status message.
func TaskEvent(now time.Time, agent string, id a2a.TaskID, state a2a.TaskState, ago time.Duration, text string, refs ...a2a.TaskID) model.Event {
	ts := now.Add(-ago)
	t := &a2a.Task{ID: id, ContextID: "ctx-" + model.ShortID(id), Status: a2a.TaskStatus{State: state, Timestamp: &ts}}
	if text != "" {
		msg := a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart(text))
		msg.ID = "msg-" + model.ShortID(id)
		msg.ReferenceTasks = refs
		t.Status.Message = msg
	}
	return model.Event{Kind: model.EventTask, Agent: agent, Source: model.SourceStream, At: ts, Task: t}
}

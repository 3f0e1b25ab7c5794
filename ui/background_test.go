package ui

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"a2atop/ui/termbg"
)

// lockedBuffer is the terminal's output, written from a Cmd.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// answerKeys is a terminal's answer to the background query as Bubble
// Tea v1.3.10 reads it from the input: keys.
func answerKeys(body string, bel bool) []tea.Msg {
	end := tea.Msg(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'\\'}, Alt: true})
	if bel {
		end = tea.KeyMsg{Type: tea.KeyCtrlG}
	}
	return []tea.Msg{tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{']'}, Alt: true},
		tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(body)}, end}
}

// TestTheTerminalsAnswerSwitchesTheThemeAndIsNotTyped: with
// AskBackground, Init asks the terminal for its background; its answer,
// which comes as keys while the filter is open, switches the colours
// and types nothing; what the person types after it is typed.
func TestTheTerminalsAnswerSwitchesTheThemeAndIsNotTyped(t *testing.T) {
	for _, bel := range []bool{false, true} {
		out := &lockedBuffer{}
		m, _ := newTestModel(t, Options{AskBackground: true, Output: out})
		m.alarm.waiting = true // the clock's Cmd would wait
		sized(m, 120, 40)
		settle(m, m.Init())
		if !strings.Contains(out.String(), termbg.Query) {
			t.Fatalf("Init did not ask the terminal for its background: %q", out.String())
		}
		press(m, "/")
		for _, msg := range answerKeys("11;rgb:ffff/ffff/ffff", bel) {
			_, cmd := m.Update(msg)
			settle(m, cmd)
		}
		if m.ctx.Theme.Dark {
			t.Error("the terminal answered white, the theme is still dark")
		}
		if got := tasksOf(m).Filter(); got != "" {
			t.Errorf("the answer was typed into the filter: %q", got)
		}
		press(m, "d", "e", "p")
		if got := tasksOf(m).Filter(); got != "dep" {
			t.Errorf("after the answer, typing dep made the filter %q", got)
		}
		// A second answer, or alt+] typed later, is a key again.
		for _, msg := range answerKeys("11;rgb:0000/0000/0000", bel) {
			_, cmd := m.Update(msg)
			settle(m, cmd)
		}
		if m.ctx.Theme.Dark {
			t.Error("a second answer, not asked for, switched the theme")
		}
	}
}

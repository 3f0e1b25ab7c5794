package common

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/ui/theme"
)

func runes(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }

func TestConfirmArmsOnlyAfterQuiet(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)
	yes := key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "yes"))
	no := key.NewBinding(key.WithKeys("n", "esc"), key.WithHelp("n/esc", "no"))
	c, wake := NewConfirm(yes, no, 500*time.Millisecond, t0)
	if wake == nil {
		t.Fatal("no Cmd to wake the view when the dialog arms")
	}
	th := theme.New(theme.Options{Mode: theme.ModeDark})
	if h := c.Hint(th, t0, "send", "back"); !strings.Contains(h, "y arms after a quiet moment") || !strings.Contains(h, "n/esc: back") {
		t.Errorf("hint before arming: %q", h)
	}
	if a, _ := c.Key(runes("y"), t0.Add(100*time.Millisecond)); a != Undecided {
		t.Fatalf("a y typed ahead answered %d", a)
	}
	// The early y started the quiet period again.
	if a, _ := c.Key(runes("y"), t0.Add(550*time.Millisecond)); a != Undecided {
		t.Fatalf("y within the quiet period of the last key answered %d", a)
	}
	if a, _ := c.Key(runes("x"), t0.Add(1100*time.Millisecond)); a != Undecided {
		t.Fatalf("another key answered %d", a)
	}
	armed := t0.Add(1700 * time.Millisecond)
	if h := c.Hint(th, armed, "send", "back"); !strings.Contains(h, "y: send · n/esc: back") {
		t.Errorf("hint once armed: %q", h)
	}
	if a, _ := c.Key(runes("y"), armed); a != Yes {
		t.Fatalf("y once armed answered %d", a)
	}
	c2, _ := NewConfirm(yes, no, time.Second, t0)
	if a, _ := c2.Key(tea.KeyMsg{Type: tea.KeyEsc}, t0); a != No {
		t.Fatalf("esc answered %d, want No at once", a)
	}
}

func TestNilOutboxDrops(t *testing.T) {
	var o *Outbox
	o.Send(BackMsg{})
	if o.Take() != nil {
		t.Fatal("a nil outbox kept a message")
	}
	o = &Outbox{}
	o.Send(BackMsg{})
	o.Send(StatusMsg{Text: "x"})
	if got := o.Take(); len(got) != 2 || o.Take() != nil {
		t.Fatalf("Take = %v, then not empty", got)
	}
}

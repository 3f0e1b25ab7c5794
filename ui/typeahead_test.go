package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

func runes(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }

func paste(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s), Paste: true} }

// TestTypeAheadAfterSlashFillsTheFilter: "/deployer" fills the filter
// whether it arrives in one read (tmux send-keys, a fast typist), as a
// paste, or as separate messages right after the /, on every screen with
// a list.
func TestTypeAheadAfterSlashFillsTheFilter(t *testing.T) {
	for _, tc := range []struct {
		name string
		msgs []tea.KeyMsg
	}{
		{"one read", []tea.KeyMsg{runes("/deployer")}},
		{"a paste", []tea.KeyMsg{paste("/deployer")}},
		{"separate", []tea.KeyMsg{runes("/"), runes("dep"), runes("l"), runes("oyer")}},
		{"after moving", []tea.KeyMsg{runes("jj/deployer")}},
	} {
		for _, screen := range []string{"1", "3"} {
			m, _ := newTestModel(t, Options{})
			sized(m, 120, 40)
			press(m, screen)
			for _, msg := range tc.msgs {
				_, cmd := m.Update(msg)
				settle(m, cmd)
			}
			if f := footerOf(m); !strings.HasPrefix(f, "/deployer") {
				t.Errorf("%s on screen %s: the footer is %q, want the filter /deployer", tc.name, screen, f)
			}
			press(m, "enter")
			switch screen {
			case "1":
				if got := tasksOf(m).Filter(); got != "deployer" {
					t.Errorf("%s: the tasks filter is %q", tc.name, got)
				}
			case "3":
				if got := agentsOf(m).Listed(); len(got) != 1 || got[0].Name != "deployer" {
					t.Errorf("%s: the agents filter keeps %d agents", tc.name, len(got))
				}
			}
		}
	}
}

// TestTypeAheadAfterColonFillsTheCommandLine: ":inbox" in one read left
// the command line at ":" (the overlay ignored the rest of the read).
func TestTypeAheadAfterColonFillsTheCommandLine(t *testing.T) {
	for _, msgs := range [][]tea.KeyMsg{{runes(":agents")}, {paste(":agents")}, {runes(":"), runes("agents")}} {
		m, _ := newTestModel(t, Options{})
		sized(m, 120, 40)
		for _, msg := range msgs {
			_, cmd := m.Update(msg)
			settle(m, cmd)
		}
		if got := m.prompt.value(); m.overlay != overlayCommand || got != "agents" {
			t.Fatalf("%q: the command line holds %q (open %v)", msgs, got, m.overlay == overlayCommand)
		}
		press(m, "enter")
		if m.view != viewAgents {
			t.Fatalf("%q then enter: view %d, want agents", msgs, m.view)
		}
	}
}

// TestAPasteIsNeverKeys: pasted text that opens no field does nothing:
// it is text, not keys (bubbletea's rule for pastes).
func TestAPasteIsNeverKeys(t *testing.T) {
	m, b := newTestModel(t, Options{})
	sized(m, 120, 40)
	_, cmd := m.Update(paste("jjc"))
	settle(m, cmd)
	if confirming(m) || tasksOf(m).Focused().Cursor != 0 || len(b.cancels) != 0 {
		t.Fatalf("a paste moved the cursor or opened the cancel")
	}
	if !strings.Contains(m.status.text, "paste") {
		t.Fatalf("the footer %q does not say the paste was not typed anywhere", m.status.text)
	}
}

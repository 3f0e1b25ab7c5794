package ui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"a2atop/ui/common"
	"a2atop/ui/termbg"
)

// The terminal's background in theme mode auto (Options.AskBackground):
// the first frame does not wait for the terminal. The theme starts from
// the start's guess (COLORFGBG, else dark: ui/termbg); once the program
// reads the terminal, Init asks it (termbg.Query, OSC 11), and its
// answer comes back in the input, where Bubble Tea v1.3.10, which knows
// no OSC answer, reads it as keys: alt+], the runes "11;rgb:…", then
// alt+\ (ST) or ctrl+g (BEL). The root takes those for the answer, not
// for keys, while one is awaited, and switches the colours if the
// answer differs from the guess. A terminal that never answers leaves
// the guess, and after answerWait nothing typed is taken for an answer.

// answerWait is how long after asking an answer is awaited.
const answerWait = 5 * time.Second

// bgStep is where the answer being read stands.
type bgStep uint8

const (
	bgNone   bgStep = iota // nothing awaited
	bgAsked                // asked: alt+] opens the answer
	bgOpened               // alt+] came: its body is next
	bgRead                 // the body came: the terminator is next
)

// bgAnswer is what the root awaits of the terminal's answer.
type bgAnswer struct {
	step  bgStep
	asked time.Time
	dark  bool // the body read
}

// askBackground is the Cmd that asks the terminal for its background,
// nil when Options.AskBackground is off.
func (m *Model) askBackground(ask bool) tea.Cmd {
	if !ask {
		return nil
	}
	m.bg = bgAnswer{step: bgAsked, asked: m.ctx.Now()}
	out := m.clip.Out
	return func() tea.Msg {
		_, _ = out.Write([]byte(termbg.Query))
		return nil
	}
}

// backgroundAnswer takes msg for a piece of the terminal's answer while
// one is awaited: ok says it was (it is not a key), and cmd is what the
// whole answer changes.
func (m *Model) backgroundAnswer(msg tea.Msg) (cmd tea.Cmd, ok bool) {
	if m.bg.step == bgNone {
		return nil, false
	}
	if m.ctx.Now().Sub(m.bg.asked) > answerWait {
		m.bg.step = bgNone
		return nil, false
	}
	k, isKey := msg.(tea.KeyMsg)
	if !isKey {
		return nil, false
	}
	switch m.bg.step {
	case bgAsked:
		if k.Alt && k.Type == tea.KeyRunes && string(k.Runes) == "]" {
			m.bg.step = bgOpened
			return nil, true
		}
	case bgOpened:
		if dark, parsed := termbg.ParseAnswer(string(k.Runes)); k.Type == tea.KeyRunes && !k.Alt && parsed {
			m.bg.step, m.bg.dark = bgRead, dark
			return nil, true
		}
		m.bg.step = bgAsked // not the answer: alt+] was typed
	case bgRead:
		m.bg.step = bgNone
		cmd = m.useBackground(m.bg.dark)
		if (k.Alt && k.Type == tea.KeyRunes && string(k.Runes) == "\\") || k.Type == tea.KeyCtrlG {
			return cmd, true
		}
		// No terminator: the key is the person's, after the answer.
		_, key := m.Update(msg)
		return tea.Batch(cmd, key), true
	}
	return nil, false
}

// useBackground switches the colours to the terminal's background, as
// :theme does but without a notice: nothing was asked of the person.
func (m *Model) useBackground(dark bool) tea.Cmd {
	lipgloss.SetHasDarkBackground(dark)
	th := m.ctx.Theme
	if th.Dark == dark {
		return nil
	}
	th.SetDark(dark)
	m.hm = common.NewHelpModel(th)
	m.help.Restyle(th)
	return m.broadcast(common.ThemeChangedMsg{})
}

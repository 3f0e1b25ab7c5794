package ui

import (
	"fmt"
	"io"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"a2atop/internal/sanitize"
	"a2atop/model"
	"a2atop/ui/common"
)

// Notify says how a task that starts waiting for a person is announced
// beyond the bell (config: notifications). The zero value announces
// nothing.
type Notify string

// The ways to announce.
const (
	NotifyOff    Notify = "off"
	NotifyAuto   Notify = "auto"   // OSC 9
	NotifyOSC9   Notify = "osc9"   // iTerm2, WezTerm, Windows Terminal, kitty, foot
	NotifyOSC777 Notify = "osc777" // rxvt-unicode, foot, kitty, GNOME's VTE
)

// on reports whether n announces anything (and keeps the title's count).
func (n Notify) on() bool { return n == NotifyAuto || n == NotifyOSC9 || n == NotifyOSC777 }

// maxNoticeText bounds a desktop notification's text.
const maxNoticeText = 200

// notice is the desktop notification for tasks that started waiting:
// who waits and, for one task, what it asks. Agent text is sanitized and
// holds no ";" (OSC 777 separates its fields with it).
func notice(f *model.Fleet, entered []model.TaskKey) (title, body string) {
	title = "a2atop: " + common.Plural(len(entered), "task") + " waiting for you"
	if len(entered) == 1 {
		k := entered[0]
		title = "a2atop: " + k.Agent + " waits for you"
		body = model.ShortID(k.ID)
		if t := f.Task(k); t != nil {
			body = model.ShortState(t.State) + " · " + t.Text
		}
	} else {
		names := make([]string, 0, 3)
		for _, k := range entered[:min(3, len(entered))] {
			names = append(names, k.Agent+" "+model.ShortID(k.ID))
		}
		body = strings.Join(names, ", ")
		if len(entered) > 3 {
			body += fmt.Sprintf(" and %d more", len(entered)-3)
		}
	}
	clean := func(s string) string { return strings.ReplaceAll(sanitize.Line(s, maxNoticeText), ";", ",") }
	return clean(title), clean(body)
}

// noticeSeq is the escape sequence of a desktop notification: OSC 9
// (one text) or OSC 777 (a title and a body), wrapped for tmux's
// passthrough too when inside tmux (written twice, as the OSC 52 copy).
func noticeSeq(n Notify, title, body string, tmux bool) string {
	seq := "\x1b]9;" + title
	if body != "" {
		seq += ": " + body
	}
	seq += "\x07"
	if n == NotifyOSC777 {
		seq = "\x1b]777;notify;" + title + ";" + body + "\x07"
	}
	if tmux {
		seq += "\x1bPtmux;" + strings.ReplaceAll(seq, "\x1b", "\x1b\x1b") + "\x1b\\"
	}
	return seq
}

// announce writes the desktop notification for tasks that started
// waiting, in a Cmd.
func (m *Model) announce(entered []model.TaskKey) tea.Cmd {
	if !m.notify.on() || m.ctx.ReadOnly || len(entered) == 0 {
		return nil
	}
	title, body := notice(m.ctx.Fleet, entered)
	out, seq := m.clip.Out, noticeSeq(m.notify, title, body, m.clip.Tmux)
	log := m.log
	return func() tea.Msg {
		if _, err := io.WriteString(out, seq); err != nil {
			log.Warn("desktop notification failed", common.LogKeyErr, err)
		}
		return nil
	}
}

// titleCmd keeps the count of waiting tasks in the terminal's title
// when it changed.
func (m *Model) titleCmd() tea.Cmd {
	if !m.notify.on() {
		return nil
	}
	n := m.ctx.Fleet.Count(model.ClassInterrupted, model.Query{})
	if n == m.titleCount {
		return nil
	}
	m.titleCount = n
	title := "a2atop"
	if n > 0 {
		title = fmt.Sprintf("a2atop · %d waiting", n)
	}
	return m.writeTitle(title)
}

// writeTitle sets the terminal's title by writing OSC 2 on Output, in a
// Cmd, as the notifications and the OSC 52 copy are written, and not
// with tea.SetWindowTitle: in bubbletea v1.3.10 that writes through the
// renderer's output (its ANSI compressor, a bytes.Buffer) from the event
// loop without the renderer's lock, while the renderer's ticker flushes
// a frame through the same buffer; the race detector catches it, and on
// a terminal a title could land inside a frame. Output is the terminal
// itself, an *os.File, safe to write from any goroutine.
func (m *Model) writeTitle(title string) tea.Cmd {
	out, seq, log := m.clip.Out, ansi.SetWindowTitle(sanitize.Line(title, common.MaxLineText)), m.log
	return func() tea.Msg {
		if _, err := io.WriteString(out, seq); err != nil {
			log.Warn("terminal title failed", common.LogKeyErr, err)
		}
		return nil
	}
}

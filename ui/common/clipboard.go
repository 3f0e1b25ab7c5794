package common

import (
	"io"
	"log/slog"

	osc52 "github.com/aymanbagabas/go-osc52/v2"
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/internal/sanitize"
)

// Clipboard writes to the terminal's clipboard with OSC 52.
type Clipboard struct {
	Out  io.Writer // the terminal the program draws on
	Tmux bool      // inside tmux: write the sequence for tmux too
	Log  *slog.Logger
}

// Copy writes text (a task id, a sign-in code) to the clipboard with OSC
// 52: our own escape sequence, through the program's output, with the
// text sanitized. Inside tmux it is written twice: plain, which tmux
// takes itself when set-clipboard is on, and wrapped for passthrough,
// which reaches the outer terminal when allow-passthrough is on (off by
// default since tmux 3.3, which then drops the wrapped one: wrapped
// alone, y copied nothing). The Cmd's answer is the notice of what it
// did, naming what ("the code"), or the text itself when what is "".
func (c *Clipboard) Copy(text, what string) tea.Cmd {
	out, tmux, log := c.Out, c.Tmux, c.Log
	text = sanitize.Line(text, 2048)
	if what == "" {
		what = text
	}
	return func() tea.Msg {
		seqs := []osc52.Sequence{osc52.New(text)}
		if tmux {
			seqs = append(seqs, osc52.New(text).Tmux())
		}
		for _, seq := range seqs {
			if _, err := seq.WriteTo(out); err != nil {
				log.Warn("copy to clipboard failed", LogKeyErr, err)
				return StatusMsg{Text: "copy failed: " + err.Error(), Err: true}
			}
		}
		return StatusMsg{Text: "copied " + what + " (OSC 52; your terminal decides whether to accept it)"}
	}
}

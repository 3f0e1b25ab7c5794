package cli

import (
	"io"
	"os"

	"github.com/charmbracelet/x/term"

	"a2atop/internal/config"
	"a2atop/ui/theme"
)

// asksBackground reports whether the dashboard asks its terminal for
// its background colour (ui.Options.AskBackground): in theme mode auto,
// drawing on a terminal. It asks once its program runs; the first frame
// does not wait for the answer.
func asksBackground(cfg *config.Config, out io.Writer) bool {
	mode, err := theme.ParseMode(cfg.Theme)
	f, ok := out.(*os.File)
	return err == nil && mode == theme.ModeAuto && ok && term.IsTerminal(f.Fd())
}

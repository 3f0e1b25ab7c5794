package cli

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/term"

	"a2atop/internal/sanitize"
	"a2atop/model"
	"a2atop/ui/common"
)

// printTasksTable writes one row per task under a header: AGENT, ID,
// STATE, AGE (since the last status change) and STATUS (the status text,
// or without one the row's hint as the dashboard shows it), aligned. On a terminal
// the id is the short id the screens show and every row is cut to the
// terminal's width; piped, ids and texts are whole. An agent that did not
// answer is named on stderr, with why, and makes the exit status 1.
func printTasksTable(o *options, fleet *model.Fleet, agents []*agentResult, tasks []*model.Task, now time.Time) int {
	width := terminalWidth(o.st.Out)
	max := math.MaxInt
	if width > 0 {
		max = width
	}
	rows := [][]string{{"AGENT", "ID", "STATE", "AGE", "STATUS"}}
	for _, t := range tasks {
		id := string(t.Key.ID)
		if width > 0 {
			id = model.ShortID(t.Key.ID)
		}
		rows = append(rows, []string{cell(t.Key.Agent, maxNameRunes), cell(id, max), cell(model.ShortState(t.State), 32),
			common.Age(now, t.Updated), cell(statusText(fleet, t), max)})
	}
	if len(tasks) > 0 {
		writeTable(o.st.Out, rows, width)
	}
	for _, a := range agents {
		if !a.Answered() {
			o.failf(exitFailed, "%s: %s", a.Name, a.Problem(o.timeout))
		}
	}
	if len(tasks) == 0 {
		fmt.Fprintf(o.st.Err, "%s: no tasks\n", o.name)
	}
	return agentsStatus(agents)
}

// statusText is a task's status text or, when it has none, the hint its
// dashboard row shows ("1 failed / 11 passed", "gone: ...").
func statusText(f *model.Fleet, t *model.Task) string {
	if t.Text != "" {
		return t.Text
	}
	return f.RowHint(t)
}

// writeTable writes rows (of cells already sanitized) as columns two
// spaces apart; the last column is not padded. A width above 0 cuts
// every line to it.
func writeTable(w io.Writer, rows [][]string, width int) {
	var widths []int
	for _, r := range rows {
		for i, c := range r {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], ansi.StringWidth(c))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		var line strings.Builder
		for i, c := range r {
			line.WriteString(c)
			if i < len(r)-1 {
				line.WriteString(strings.Repeat(" ", widths[i]-ansi.StringWidth(c)+2))
			}
		}
		l := line.String()
		if width > 0 {
			l = sanitize.Line(l, width)
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	_, _ = io.WriteString(w, b.String())
}

// terminalWidth returns the width of w when it is a terminal, else 0.
func terminalWidth(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(f.Fd()) {
		return 0
	}
	width, _, err := term.GetSize(f.Fd())
	if err != nil || width <= 0 {
		return 80
	}
	return width
}

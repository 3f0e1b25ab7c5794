package common

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"a2atop/internal/sanitize"
	"a2atop/model"
	"a2atop/ui/theme"
)

// Outcome is where one task of an action on many stands.
type Outcome uint8

// The outcomes, in the order the list counts them.
const (
	Pending Outcome = iota // asked, no answer yet
	Sent                   // the agent took it
	Refused                // the agent or a check refused it: nothing happened
	Unknown                // no answer in time: it may or may not have arrived
	Skipped                // not sent: the task did not take it (said why)
)

// word is the outcome as the list writes it.
func (o Outcome) word() string {
	return [...]string{"pending…", "sent", "refused", "unknown", "skipped"}[o]
}

// ResultKeys scroll and close the list of results.
type ResultKeys struct {
	Up, Down, Close key.Binding
}

// DefaultResultKeys are k/j (and the arrows) and esc, enter or q.
func DefaultResultKeys() ResultKeys {
	return ResultKeys{
		Up:    key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:  key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		Close: key.NewBinding(key.WithKeys("esc", "enter", "q"), key.WithHelp("esc", "close the results")),
	}
}

// resultRow is one task of the list.
type resultRow struct {
	key     model.TaskKey
	outcome Outcome
	words   string
}

// Results are the outcomes of one action on many tasks (approve ten,
// cancel three), task by task: each one's outcome is shown on its own
// row, never folded into a summary that could hide a failure. Build them
// with NewResults; the zero value is an empty list.
type Results struct {
	// Note is said under the rows once every answer is in ("each
	// decision is in the journal"); "" says nothing more.
	Note  string
	title string
	rows  []resultRow
	index map[model.TaskKey]int
	top   int
}

// NewResults lists keys as pending under title ("approve").
func NewResults(title string, keys []model.TaskKey) *Results {
	r := &Results{title: title, index: make(map[model.TaskKey]int, len(keys))}
	for _, k := range keys {
		r.index[k] = len(r.rows)
		r.rows = append(r.rows, resultRow{key: k})
	}
	return r
}

// Add appends a task with its outcome already known (a skipped one);
// a task the list holds already keeps its row.
func (r *Results) Add(k model.TaskKey, o Outcome, words string) {
	if _, ok := r.index[k]; ok {
		return
	}
	if r.index == nil {
		r.index = map[model.TaskKey]int{}
	}
	r.index[k] = len(r.rows)
	r.rows = append(r.rows, resultRow{key: k, outcome: o, words: words})
}

// Skip is a marked task an action on many leaves alone, and why.
type Skip struct {
	Key model.TaskKey
	Why string
}

// NewResultsSkipping lists keys as pending under title, then the skips
// as Skipped, each with why.
func NewResultsSkipping(title string, keys []model.TaskKey, skips []Skip) *Results {
	r := NewResults(title, keys)
	for _, s := range skips {
		r.Add(s.Key, Skipped, s.Why)
	}
	return r
}

// Set records what happened to task k; it reports whether k is one of
// the list's tasks.
func (r *Results) Set(k model.TaskKey, o Outcome, words string) bool {
	i, ok := r.index[k]
	if ok {
		r.rows[i].outcome, r.rows[i].words = o, words
	}
	return ok
}

// Has reports whether k is one of the list's tasks.
func (r *Results) Has(k model.TaskKey) bool {
	_, ok := r.index[k]
	return ok
}

// Outcome is what happened to k so far.
func (r *Results) Outcome(k model.TaskKey) Outcome {
	if i, ok := r.index[k]; ok {
		return r.rows[i].outcome
	}
	return Pending
}

// Done reports whether every task has its outcome.
func (r *Results) Done() bool {
	for _, row := range r.rows {
		if row.outcome == Pending {
			return false
		}
	}
	return true
}

// Len is how many tasks the list holds.
func (r *Results) Len() int { return len(r.rows) }

// counts are the tasks of each outcome.
func (r *Results) counts() [Skipped + 1]int {
	var n [Skipped + 1]int
	for _, row := range r.rows {
		n[row.outcome]++
	}
	return n
}

// Summary counts the outcomes for the footer: "approve: 9 sent, 1
// refused". Failed reports whether any task was refused, unknown or
// skipped: the footer then shows it as a failure. The list itself names
// every task.
func (r *Results) Summary() (text string, failed bool) {
	n := r.counts()
	var parts []string
	for o := Pending; o <= Skipped; o++ {
		if n[o] > 0 {
			parts = append(parts, strconv.Itoa(n[o])+" "+strings.TrimSuffix(o.word(), "…"))
		}
	}
	return r.title + ": " + strings.Join(parts, ", "), n[Refused]+n[Unknown]+n[Skipped] > 0
}

// Key scrolls the list; it reports whether the list closes.
func (r *Results) Key(msg tea.KeyMsg, keys ResultKeys) (closed bool) {
	switch {
	case key.Matches(msg, keys.Close):
		return true
	case key.Matches(msg, keys.Up):
		r.top = max(r.top-1, 0)
	case key.Matches(msg, keys.Down):
		r.top = min(r.top+1, max(len(r.rows)-1, 0))
	}
	return false
}

// View draws the list in w×h cells: a title with the counts, then one
// row per task (agent · id, its outcome, what the agent said).
func (r *Results) View(th *theme.Theme, keys ResultKeys, w, h int) string {
	n := r.counts()
	head := th.DialogTitle.Render(sanitize.Line(r.title, 40)+" · "+strconv.Itoa(len(r.rows))+" tasks") + "  " + r.countLine(th, n)
	lines := []string{head, ""}
	room := max(h-4, 1)
	r.top = min(r.top, max(len(r.rows)-room, 0))
	aw := 8
	for _, row := range r.rows {
		aw = max(aw, min(lipgloss.Width(sanitize.Line(row.key.Agent, 24)), 24))
	}
	shown := 0
	for i := r.top; i < len(r.rows); i++ {
		row := r.rowLines(th, r.rows[i], aw, w)
		if shown > 0 && len(lines)-2+len(row) > room {
			break
		}
		lines = append(lines, row...)
		shown++
	}
	if more := len(r.rows) - r.top - shown; more > 0 {
		lines = append(lines, th.Muted.Render("  … "+strconv.Itoa(more)+" more ("+keys.Down.Help().Key+" scrolls)"))
	}
	note := ""
	if r.Note != "" {
		note = " · " + r.Note
	}
	hint := th.Muted.Render(keys.Close.Help().Key + ": close" + note)
	if !r.Done() {
		hint = th.Muted.Render("answers still coming in · " + keys.Close.Help().Key + ": close (they keep coming in)")
	}
	lines = append(lines, "", hint)
	return strings.Join(Fit(strings.Join(lines, "\n"), w, h), "\n")
}

// resultWordLines is how many lines what the agent said about one task
// may take; the rest is cut with an ellipsis.
const resultWordLines = 2

// rowLines is one task's row in w cells: agent · id, its outcome, and
// what the agent said, wrapped under itself onto a second line when it
// is long ("...; nothing was sent" is the end that matters).
func (r *Results) rowLines(th *theme.Theme, row resultRow, aw, w int) []string {
	name := Pad(sanitize.Line(row.key.Agent, aw), aw) + " " + Pad(sanitize.Line(model.ShortID(row.key.ID), 8), 8)
	word := Pad(row.outcome.word(), 9)
	lead := "  " + name + " " + outcomeStyle(th, row.outcome).Render(word) + " "
	indent := 2 + lipgloss.Width(name) + 1 + 9 + 1
	rest := max(w-indent, 1)
	said := sanitize.Line(row.words, len(row.words)+1)
	parts := strings.Split(ansi.Wrap(said, rest, ""), "\n")
	if len(parts) > resultWordLines {
		parts = append(parts[:resultWordLines-1], sanitize.Line(strings.Join(parts[resultWordLines-1:], " "), rest))
	}
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = strings.Repeat(" ", indent) + th.Muted.Render(p)
	}
	out[0] = lead + th.Muted.Render(parts[0])
	return out
}

// countLine is "9 sent · 1 refused" in the outcomes' colours.
func (r *Results) countLine(th *theme.Theme, n [Skipped + 1]int) string {
	var parts []string
	for o := Pending; o <= Skipped; o++ {
		if n[o] > 0 {
			parts = append(parts, outcomeStyle(th, o).Render(strconv.Itoa(n[o])+" "+strings.TrimSuffix(o.word(), "…")))
		}
	}
	return strings.Join(parts, th.Muted.Render(" · "))
}

func outcomeStyle(th *theme.Theme, o Outcome) lipgloss.Style {
	switch o {
	case Sent:
		return th.OK
	case Refused:
		return th.Error
	case Unknown, Skipped:
		return th.Warn
	}
	return th.Muted
}

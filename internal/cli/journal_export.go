package cli

import (
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/approvals"
	"a2atop/internal/sanitize"
	"a2atop/model"
)

// exportFlags are the flags of the export form of `a2atop journal`.
type exportFlags struct {
	since  string
	format string
	out    string
}

func (e *exportFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&e.since, "since", "", "export only what was decided or observed in the last `DURATION` (30m, 24h, 7d)")
	fs.StringVar(&e.format, "format", "csv", "`FORMAT` of the export: csv or jsonl")
	fs.StringVar(&e.out, "out", "", "write the export to `FILE` (0600) instead of the standard output")
}

// exportColumns are the columns of the CSV export, in order: who
// decided what, when, what it achieved and what the agent did after.
var exportColumns = []string{"decided_at", "approver", "agent", "task", "context", "kind", "reason", "payload",
	"outcome", "outcome_at", "problem", "error", "attempts", "message_id", "prompt_state", "later_states", "agent_url", "votes", "journal_lines"}

// exportRecord is one journal entry as the export writes it.
type exportRecord struct {
	DecidedAt   time.Time     `json:"decided_at"`
	Approver    string        `json:"approver,omitempty"`
	Agent       string        `json:"agent"`
	Task        a2a.TaskID    `json:"task"`
	Context     string        `json:"context,omitempty"`
	Kind        string        `json:"kind"`
	Reason      string        `json:"reason,omitempty"`
	Payload     []*a2a.Part   `json:"payload,omitempty"`
	Outcome     string        `json:"outcome,omitempty"`
	OutcomeAt   time.Time     `json:"outcome_at,omitzero"`
	Problem     string        `json:"problem,omitempty"`
	Error       string        `json:"error,omitempty"`
	Attempts    int           `json:"attempts,omitempty"`
	MessageID   string        `json:"message_id,omitempty"`
	PromptState string        `json:"prompt_state,omitempty"`
	LaterStates []exportState `json:"later_states,omitempty"`
	AgentURL    string        `json:"agent_url,omitempty"`
	// Votes are, for a decision that completed an approval policy, the
	// votes it counted: name, at, reason.
	Votes []approvals.Voter `json:"votes,omitempty"`
	// JournalLines are the journal lines the record rests on, for an
	// auditor to check against the file's hash chain.
	JournalLines []exportLine `json:"journal_lines,omitempty"`
}

// exportLine is one journal line of an export record: its number, its
// seq in the chain (0 before the chain) and the SHA-256 of its bytes.
type exportLine struct {
	Line   int    `json:"line"`
	Seq    int    `json:"seq,omitempty"`
	SHA256 string `json:"sha256"`
}

// linesOf are the journal lines of an entry, as the export writes them.
func linesOf(e approvals.Entry) []exportLine {
	out := make([]exportLine, 0, len(e.Lines))
	for _, l := range e.Lines {
		out = append(out, exportLine{Line: l.Line, Seq: l.Seq, SHA256: l.HashText()})
	}
	return out
}

// linesCell is the CSV cell of the journal lines: "LINE:SEQ:sha256:HEX"
// each, separated by "; ".
func linesCell(ls []exportLine) string {
	cells := make([]string, len(ls))
	for i, l := range ls {
		cells[i] = fmt.Sprintf("%d:%d:%s", l.Line, l.Seq, l.SHA256)
	}
	return strings.Join(cells, "; ")
}

// exportState is one state change the agent's task went through.
type exportState struct {
	At     time.Time `json:"at"`
	From   string    `json:"from"`
	To     string    `json:"to"`
	Source string    `json:"source,omitempty"`
	Note   string    `json:"note,omitempty"`
}

// recordOf is an entry as the export writes it; an observation with no
// decision of ours is kind "observed", at its first state change.
func recordOf(e approvals.Entry) exportRecord {
	r := exportRecord{DecidedAt: e.DecidedAt.UTC(), Approver: e.Approver, Agent: e.Agent, Task: e.TaskID, Context: e.ContextID,
		Kind: string(e.Kind), Reason: e.Reason, Payload: e.Parts, Outcome: string(e.Result), OutcomeAt: e.ResultAt.UTC(),
		Problem: string(e.Problem), Error: e.Error, Attempts: e.Attempts, MessageID: e.MessageID,
		PromptState: model.ShortState(e.PromptState), AgentURL: e.AgentURL, Votes: e.Votes, JournalLines: linesOf(e)}
	if e.PromptState == "" {
		r.PromptState = ""
	}
	if e.ResultAt.IsZero() {
		r.OutcomeAt = time.Time{}
	}
	if e.Observed() {
		r.Kind = "observed"
		if len(e.States) > 0 {
			r.DecidedAt = e.States[0].At.UTC()
		}
	}
	for _, s := range e.States {
		r.LaterStates = append(r.LaterStates, exportState{At: s.At.UTC(), From: model.ShortState(s.From), To: model.ShortState(s.To),
			Source: s.Source, Note: s.Note})
	}
	return r
}

// exportEntries are the journal's entries since since (0: all), oldest
// first, as an audit reads them.
func exportEntries(svc *approvals.Service, since time.Duration, now time.Time) []exportRecord {
	all := svc.Journal() // newest first
	out := make([]exportRecord, 0, len(all))
	for i := len(all) - 1; i >= 0; i-- {
		r := recordOf(all[i])
		if since > 0 && r.DecidedAt.Before(now.Add(-since)) {
			continue
		}
		out = append(out, r)
	}
	return out
}

// writeExport writes records as CSV (a header, then one row each) or
// JSONL (one object a line).
func writeExport(w io.Writer, format string, records []exportRecord) error {
	switch format {
	case "jsonl":
		for _, r := range records {
			if err := sanitize.WriteJSON(w, r); err != nil {
				return err
			}
		}
		return nil
	case "csv":
		cw := csv.NewWriter(w)
		if err := cw.Write(exportColumns); err != nil {
			return err
		}
		for _, r := range records {
			if err := cw.Write(csvRow(r)); err != nil {
				return err
			}
		}
		cw.Flush()
		return cw.Error()
	}
	return fmt.Errorf("--format %q: use csv or jsonl", format)
}

// csvRow is a record's cells. Every cell is safe to print on a terminal
// and to open in a spreadsheet: agent text is sanitized, and a cell that
// a spreadsheet would read as a formula (=, +, -, @ first) starts with
// an apostrophe.
func csvRow(r exportRecord) []string {
	var states []string
	for _, s := range r.LaterStates {
		st := s.At.Format(time.RFC3339) + " " + s.From + " → " + s.To
		if s.Source != "" {
			st += " (" + s.Source + ")"
		}
		states = append(states, st)
	}
	payload := ""
	if len(r.Payload) > 0 {
		b, _ := json.Marshal(r.Payload)
		payload = string(b)
	}
	cells := []string{stamp(r.DecidedAt), r.Approver, r.Agent, string(r.Task), r.Context, r.Kind, r.Reason, payload,
		r.Outcome, stamp(r.OutcomeAt), r.Problem, r.Error, attempts(r.Attempts), r.MessageID, r.PromptState,
		strings.Join(states, "; "), r.AgentURL, votesCell(r.Votes), linesCell(r.JournalLines)}
	for i, c := range cells {
		cells[i] = csvCell(c)
	}
	return cells
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func attempts(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// csvCell is a CSV cell of agent or operator text.
func csvCell(s string) string {
	s = sanitize.Text(s, 1<<20)
	if s != "" && strings.ContainsRune("=+-@", rune(s[0])) {
		s = "'" + s
	}
	return s
}

// parseSince reads --since: a Go duration, or a number of days ("7d").
func parseSince(s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	if d, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(d)
		if err == nil && n > 0 {
			return time.Duration(n) * 24 * time.Hour, nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("--since %q: a duration like 30m, 24h or 7d", s)
	}
	return d, nil
}

// exportTo writes the export of svc to path (created 0600, never over
// a file that exists) or, for "", to w.
func exportTo(svc *approvals.Service, w io.Writer, path, format string, since time.Duration, now time.Time) error {
	records := exportEntries(svc, since, now)
	if path == "" {
		return writeExport(w, format, records)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if err := writeExport(f, format, records); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// dashboardExport is :export: the whole journal as CSV in a new file of
// dir (the working directory for ""), named for the moment.
func dashboardExport(svc *approvals.Service, now func() time.Time) func(dir string) (string, error) {
	return func(dir string) (string, error) {
		if dir == "" {
			dir = "."
		}
		path := filepath.Join(dir, "a2atop-journal-"+now().UTC().Format("20060102-150405")+".csv")
		if err := exportTo(svc, nil, path, "csv", 0, now()); err != nil {
			return "", err
		}
		return path, nil
	}
}

// taskColumns are the columns of `a2atop tasks --format csv`.
var taskColumns = []string{"agent", "id", "state", "class", "updated", "since", "context", "status", "hint", "blocked_by", "stale", "gone", "source"}

// printTasksCSV writes one row per task, then says which agents did not
// answer, as the table does.
func printTasksCSV(o *options, fleet *model.Fleet, agents []*agentResult, tasks []*model.Task) int {
	cw := csv.NewWriter(o.st.Out)
	_ = cw.Write(taskColumns)
	for _, t := range tasks {
		ctx, blocked := "", ""
		if t.Snapshot != nil {
			ctx = t.Snapshot.ContextID
		}
		if b := fleet.BlockedBy(t.Key); b != nil {
			blocked = b.Key.Agent + "/" + string(b.Key.ID)
		}
		row := []string{t.Key.Agent, string(t.Key.ID), model.ShortState(t.State), t.Class.String(), stamp(t.Updated), stamp(t.Since),
			ctx, t.Text, fleet.RowHint(t), blocked, strconv.FormatBool(t.Stale), strconv.FormatBool(t.Gone), t.Source.String()}
		for i, c := range row {
			row[i] = csvCell(c)
		}
		_ = cw.Write(row)
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return o.failf(exitFailed, "%v", err)
	}
	for _, a := range agents {
		if !a.Answered() {
			o.failf(exitFailed, "%s: %s", a.Name, a.Problem(o.timeout))
		}
	}
	return agentsStatus(agents)
}

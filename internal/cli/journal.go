package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"a2atop/approvals"
	"a2atop/internal/config"
	"a2atop/internal/sanitize"
)

const journalUsage = "usage: a2atop journal [--config FILE] [--since DURATION] [--format csv|jsonl] [--out FILE]\n" +
	"       a2atop journal check [--config FILE] [--accept LINE]... [--note TEXT]\n" +
	"       a2atop journal verify [--config FILE] [--key FILE] [JOURNAL...]\n" +
	"       a2atop journal migrate --to nats://HOST:4222[,URL...] [--replicas N] [--config FILE]"

// lineList is a repeatable --accept LINE.
type lineList []int

func (l *lineList) String() string { return fmt.Sprint([]int(*l)) }

func (l *lineList) Set(s string) error {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 1 {
		return fmt.Errorf("%q is not a line number (1, 2, ...)", s)
	}
	*l = append(*l, n)
	return nil
}

// runJournal implements `a2atop journal check [--config FILE] [--accept
// LINE]... [--note TEXT]`: it reads the approvals journal and lists every
// line that is not a record (damaged, torn, accepted), with what can be
// read from it and what it blocks. --accept resolves a damaged line the
// operator has looked at, by appending an acknowledgement that names the
// line and its hash; the journal is never rewritten. Exit: 0 when no line
// blocks decisions, 1 when one does (or the journal cannot be read), 2 on
// a usage error.
func runJournal(ctx context.Context, args []string, st Streams) int {
	if len(args) > 0 && args[0] == "verify" {
		return runJournalVerify(args[1:], st)
	}
	o := newOptions("journal", st)
	o.configFlag()
	var accept lineList
	o.fs.Var(&accept, "accept", "accept damaged line `LINE` after looking at it (repeatable): it no longer blocks decisions")
	note := o.fs.String("note", "", "what you found, kept in the journal with --accept")
	var exp exportFlags
	exp.register(o.fs)
	var mig migrateFlags
	mig.register(o)
	pos, err := o.parse(args)
	if err != nil {
		return flagStatus(err)
	}
	if len(pos) == 0 {
		return runJournalExport(o, exp)
	}
	if len(pos) == 1 && pos[0] == "migrate" {
		return runJournalMigrate(ctx, o, mig)
	}
	if len(pos) != 1 || pos[0] != "check" {
		return o.failf(exitUsage, "%s", journalUsage)
	}
	cfg, code := o.load(nil)
	if cfg == nil {
		return code
	}
	if err := sharedElsewhere(cfg); err != nil {
		return o.failf(exitUsage, "config: %v", err)
	}
	s := o.open(cfg)
	defer s.Close()
	svc, err := approvals.Open(approvals.Options{JournalPath: cfg.JournalPath, Approver: cfg.Approver,
		Agents: journalAgents(cfg), Logger: s.log, ReadOnly: len(accept) == 0, Check: true, Memory: checkMemory})
	if err != nil {
		return s.failf(exitFailed, "approvals journal %s: %s", cfg.JournalPath, sanitize.Line(err.Error(), 500))
	}
	defer svc.Close()
	failed := false
	for _, n := range accept {
		d, err := svc.Accept(n, *note)
		if err != nil {
			fmt.Fprintf(st.Err, "a2atop journal: %s\n", sanitize.Line(err.Error(), 500))
			failed = true
			continue
		}
		fmt.Fprintf(st.Out, "line %d accepted (%s): it no longer blocks decisions on %s\n", d.Line, d.Hash, sanitize.Line(d.Scope(), 80))
	}
	if printDamage(st.Out, svc) || failed {
		return exitFailed
	}
	return exitOK
}

// checkMemory is how many entries journal check holds besides the open
// decisions while it reads the whole journal (approvals Options.Check):
// what it prints is the damage, which it finds without the entries.
const checkMemory = 256

// printDamage lists the journal's lines that are not records and
// reports whether any blocks decisions.
func printDamage(w io.Writer, svc *approvals.Service) bool {
	all := svc.Damage()
	open := 0
	for _, d := range all {
		if d.Open() {
			open++
		}
	}
	path := sanitize.Line(svc.Path(), 300)
	printSegments(w, svc)
	switch {
	case len(all) == 0:
		fmt.Fprintf(w, "journal %s: every line reads back; nothing blocks decisions\n", path)
		return false
	case open == 0:
		fmt.Fprintf(w, "journal %s: nothing blocks decisions (%d line(s) below were torn or accepted)\n", path, len(all))
	default:
		fmt.Fprintf(w, "journal %s: %d line(s) block decisions\n", path, open)
	}
	for _, d := range all {
		printLine(w, d)
		printLineIn(w, d)
	}
	if open > 0 {
		fmt.Fprintln(w, "after looking at a line: a2atop journal check --accept LINE [--note TEXT]")
	}
	return open > 0
}

// printLine prints one damaged or torn line.
func printLine(w io.Writer, d approvals.Damage) {
	what := "damaged: " + d.Reason
	switch {
	case d.Torn && !d.Blocks:
		what = "torn (a crash during a write); it holds no decision"
	case d.Torn:
		what = "torn decision: " + d.Delivery()
	}
	fmt.Fprintf(w, "line %d: %s\n", d.Line, sanitize.Line(what, 300))
	fmt.Fprintf(w, "  readable: %s\n", sanitize.Line(d.Recovered(), 300))
	switch {
	case d.AcceptedBy != "":
		fmt.Fprintf(w, "  accepted by %s at %s", sanitize.Line(d.AcceptedBy, 80), d.AcceptedAt.UTC().Format(time.RFC3339))
		if d.AcceptNote != "" {
			fmt.Fprintf(w, ": %s", sanitize.Line(d.AcceptNote, 300))
		}
		fmt.Fprintln(w)
	case d.Torn && d.Blocks:
		fmt.Fprintf(w, "  blocks: new decisions on %s, until a2atop reconciles it (GetTask shows the agent does not hold it) or you accept it\n", sanitize.Line(d.Scope(), 80))
	case d.Blocks:
		fmt.Fprintf(w, "  blocks: new decisions on %s, until you accept it\n", sanitize.Line(d.Scope(), 80))
	}
	fmt.Fprintf(w, "  hash: %s\n", d.Hash)
}

// journalAgents are the configured agents as the journal keys them: the
// name each has now, and its identity (URL, tenant).
func journalAgents(cfg *config.Config) []approvals.Agent {
	out := make([]approvals.Agent, 0, len(cfg.Agents))
	for _, a := range cfg.Agents {
		out = append(out, approvals.Agent{Name: a.Name, URL: a.URL, Tenant: a.Tenant})
	}
	return out
}

// runJournalExport implements `a2atop journal [--since D] [--format
// csv|jsonl] [--out FILE]`: the journal for an audit (who decided what,
// when, what it achieved, what the agent did after), oldest first. It
// reads the journal only. Exit: 0, 1 when it cannot be read or written,
// 2 on a usage error.
func runJournalExport(o *options, exp exportFlags) int {
	since, err := parseSince(exp.since)
	if err != nil {
		return o.failf(exitUsage, "%v", err)
	}
	if exp.format != "csv" && exp.format != "jsonl" {
		return o.failf(exitUsage, "--format %q: use csv or jsonl", exp.format)
	}
	cfg, code := o.load(nil)
	if cfg == nil {
		return code
	}
	if err := sharedElsewhere(cfg); err != nil {
		return o.failf(exitUsage, "config: %v", err)
	}
	s := o.open(cfg)
	defer s.Close()
	svc, err := approvals.Open(approvals.Options{JournalPath: cfg.JournalPath, Approver: cfg.Approver,
		Agents: journalAgents(cfg), Logger: s.log, ReadOnly: true, Memory: approvals.MemoryAll})
	if err != nil {
		return s.failf(exitFailed, "approvals journal %s: %s", cfg.JournalPath, sanitize.Line(err.Error(), 500))
	}
	defer svc.Close()
	if err := exportTo(svc, o.st.Out, exp.out, exp.format, since, time.Now()); err != nil {
		return s.failf(exitFailed, "export: %s", sanitize.Line(err.Error(), 500))
	}
	return exitOK
}

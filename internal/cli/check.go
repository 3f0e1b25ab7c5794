package cli

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strings"
	"text/tabwriter"
	"time"

	"a2atop/a2aclient"
	"a2atop/internal/sanitize"
	"a2atop/push"
)

// runCheck implements `a2atop check`: load and validate the config, reach
// every agent once (card, then a first ListTasks sweep or GetTask poll
// through package a2aclient), and print one row per agent.
func runCheck(ctx context.Context, args []string, st Streams) int {
	o := newOptions("check", st)
	o.configFlag()
	o.timeoutFlag(defaultFirstRound, "how long to wait for every agent's first answer")
	r, code := o.firstRound(ctx, args, nil)
	if r == nil {
		return code
	}
	return printCheck(st.Out, r.results, o.timeout, tryPush(ctx, r, o.timeout))
}

// tryPush says, per agent whose card offers push, whether it takes a2atop's
// push configs: with push_public_url set, check registers one on a task
// the agent holds open and deletes it at once. The cells are by index in
// r.results; an agent not tried has none.
func tryPush(ctx context.Context, r *round, timeout time.Duration) map[int]string {
	cells := map[int]string{}
	if !r.cfg.PushOn() {
		return cells
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for i, res := range r.results {
		a := r.cfg.Agents[i]
		task, ok := r.open[a.Name]
		switch {
		case res.Info == nil || !res.Info.Push:
		case a.ReadOnly || r.cfg.ReadOnly:
			cells[i] = "yes (read-only: no config tried)"
		case !ok:
			cells[i] = "yes (no open task to try a config on)"
		default:
			webhook := strings.TrimRight(r.cfg.PushPublicURL, "/") + push.Path + url.PathEscape(a.Name)
			if err := r.mgr.TryPush(ctx, a.Name, task, webhook); err != nil {
				cells[i] = "yes, but registration refused: " + a2aclient.Describe(err)
			} else {
				cells[i] = "yes, registration ok"
			}
		}
	}
	return cells
}

// printCheck writes the table and returns exitOK only when every agent
// answered.
func printCheck(w io.Writer, results []*agentResult, timeout time.Duration, pushCells map[int]string) int {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tURL\tVERSION\tBINDING\tSTREAMING\tPUSH\tLISTTASKS\tAUTH\tCARD\tSTATUS")
	ok := 0
	for i, r := range results {
		version, binding, streaming, push := "-", "-", "-", "-"
		if r.Info != nil {
			version = cell(r.Info.ProtocolVersion, 12)
			binding = cell(r.Info.Binding, 12)
			streaming, push = yesNo(r.Info.Streaming), yesNo(r.Info.Push)
		}
		if c, ok := pushCells[i]; ok {
			push = cell(c, 200)
		}
		status := "ok"
		if r.Answered() {
			ok++
		} else {
			status = "FAIL: "
		}
		if p := r.Problem(timeout); p != "" {
			status += sanitize.Line(p, 300)
		}
		if r.Answered() && r.Health.Note != "" { // what the agent's row notes (a key file open to others)
			status += " (" + sanitize.Line(r.Health.Note, 300) + ")"
		}
		auth, card := authCells(r)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", cell(r.Name, 64), cell(r.URL, 80),
			version, binding, streaming, push, listing(r), auth, card, status)
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "%d of %d agents reachable\n", ok, len(results))
	if ok != len(results) {
		return exitFailed
	}
	return exitOK
}

// listing says whether ListTasks answers for our credentials.
func listing(r *agentResult) string {
	switch {
	case r.Health == nil || r.Info == nil:
		return "-"
	case r.Health.Listing:
		return "yes"
	case r.Health.ListingNote != "":
		return "no: " + sanitize.Line(r.Health.ListingNote, 60)
	default:
		return "no"
	}
}

// cell makes agent text safe for one table cell (sanitize.Line), "-" when
// empty; tabs would break the columns, and Line turns them into spaces.
func cell(s string, max int) string {
	if s == "" {
		return "-"
	}
	return sanitize.Line(s, max)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// authCells say which credential a2atop picked for the agent (and what
// the config lacks for the card's requirements) and the card's signature.
func authCells(r *agentResult) (auth, card string) {
	if r.Info == nil {
		return "-", "-"
	}
	auth = cell(r.Info.Auth, 80)
	if r.Info.AuthMissing != "" {
		auth += " (missing: " + sanitize.Line(r.Info.AuthMissing, 200) + ")"
	}
	return auth, cell(r.Info.Signature, 120)
}

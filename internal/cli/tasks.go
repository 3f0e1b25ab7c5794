package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"a2atop/model"
)

// tasksFlags are the flags of `a2atop tasks` beyond the shared ones.
type tasksFlags struct {
	json         bool
	format       string // "", "table", "json" or "csv"
	state, agent string
	filter       model.Filter // from state and agent, once checked
}

// runTasks implements `a2atop tasks [--json] [--state S] [--agent A]`:
// one sweep of every agent, applied to a model.Fleet as the dashboard
// would, printed as a table (printTaskTable) or as one JSON document
// {"agents": [...], "tasks": [...]}. Tasks come interrupted first, then
// active, terminal and unclassified; newest status first within each.
// --state and --agent select tasks as the dashboard's filter does
// (model.ParseFilter); --agent selects the agents too.
func runTasks(ctx context.Context, args []string, st Streams) int {
	o := newOptions("tasks", st)
	var f tasksFlags
	o.configFlag()
	o.fs.BoolVar(&f.json, "json", false, "print agents and tasks as one JSON document instead of a table")
	o.fs.StringVar(&f.format, "format", "", "`FORMAT` to print: table (the default), json (as --json) or csv (one row per task)")
	o.fs.StringVar(&f.state, "state", "", "only tasks in `STATE` (input-required, or a unique start of a state: input, auth, fail)")
	o.fs.StringVar(&f.agent, "agent", "", "only the agents whose name starts with `NAME`, and their tasks")
	o.timeoutFlag(defaultFirstRound, "how long to wait for every agent's first sweep")
	r, code := o.firstRound(ctx, args, f.parseFilter)
	if r == nil {
		return code
	}
	if err := f.checkAgent(r.results); err != nil {
		return o.failf(exitUsage, "%v", err)
	}
	fo := r.cfg.FleetOptions() // the terminal tasks the sweep listed, and the memory bound
	fo.MaxHistory, fo.MaxArtifactBytes = -1, -1
	fleet := model.NewFleet(fo)
	for i, a := range r.cfg.Agents {
		fleet.AddAgent(r.results[i].Name, a.URL)
	}
	fleet.Apply(r.events)

	var agents []*agentResult
	for _, a := range r.results {
		if f.agentShown(a.Name) {
			agents = append(agents, a)
		}
	}
	q := model.Query{Filter: f.filter, Sort: model.SortUpdated}
	var tasks []*model.Task
	for _, c := range []model.Class{model.ClassInterrupted, model.ClassActive, model.ClassTerminal, model.ClassUnknown} {
		tasks = append(tasks, fleet.Page(c, q, 0, fleet.Count(c, q))...)
	}
	switch {
	case f.json || f.format == "json":
		return printTasksJSON(o, fleet, agents, tasks)
	case f.format == "csv":
		return printTasksCSV(o, fleet, agents, tasks)
	}
	return printTasksTable(o, fleet, agents, tasks, time.Now())
}

// parseFilter checks --state and --agent and builds the filter from them.
func (f *tasksFlags) parseFilter() error {
	switch f.format {
	case "", "table", "json", "csv":
	default:
		return fmt.Errorf("--format %q: use table, json or csv", f.format)
	}
	var toks []string
	for _, fl := range []struct{ name, val string }{{"state", f.state}, {"agent", f.agent}} {
		if fl.val == "" {
			continue
		}
		if strings.ContainsFunc(fl.val, func(r rune) bool { return r == ' ' || r < 0x20 || r == 0x7f }) {
			return fmt.Errorf("--%s %q: a value without spaces", fl.name, fl.val)
		}
		toks = append(toks, fl.name+":"+fl.val)
	}
	f.filter = model.ParseFilter(strings.Join(toks, " "))
	if err := f.filter.Check(nil); err != nil {
		return fmt.Errorf("--state %q: %w", f.state, err)
	}
	return nil
}

// checkAgent refuses an --agent that starts no agent's name (a typo, not
// an empty list), naming the agents there are.
func (f *tasksFlags) checkAgent(results []*agentResult) error {
	var names []string
	for _, a := range results {
		if f.agentShown(a.Name) {
			return nil
		}
		names = append(names, a.Name)
	}
	return fmt.Errorf("--agent %q: no agent's name starts with it; the agents: %s", f.agent, strings.Join(names, ", "))
}

// agentShown reports whether --agent keeps the agent name: its name
// starts with the value, ignoring case, as agent: in the filter.
func (f *tasksFlags) agentShown(name string) bool {
	return f.agent == "" || len(name) >= len(f.agent) && strings.EqualFold(name[:len(f.agent)], f.agent)
}

// agentsStatus is the exit status for the agents shown: exitFailed when
// one of them did not answer.
func agentsStatus(agents []*agentResult) int {
	for _, a := range agents {
		if !a.Answered() {
			return exitFailed
		}
	}
	return exitOK
}

// printTasksJSON writes the JSON document.
func printTasksJSON(o *options, fleet *model.Fleet, agents []*agentResult, tasks []*model.Task) int {
	doc := struct {
		Agents []jsonAgent `json:"agents"`
		Tasks  []jsonTask  `json:"tasks"`
	}{Agents: []jsonAgent{}, Tasks: []jsonTask{}}
	for _, a := range agents {
		j := jsonAgent{Name: a.Name, URL: a.URL, jsonHealth: newJSONHealth(a.Health), Card: newJSONCard(a.Info)}
		if !a.Answered() {
			j.Error = a.Problem(o.timeout)
		}
		doc.Agents = append(doc.Agents, j)
	}
	for _, t := range tasks {
		doc.Tasks = append(doc.Tasks, newJSONTask(fleet, t))
	}
	if err := writeJSON(o.st.Out, doc); err != nil {
		return o.failf(exitFailed, "%v", err)
	}
	if status := agentsStatus(agents); status != exitOK {
		return o.failf(status, "some agents did not answer; see their \"error\" in the output")
	}
	return exitOK
}

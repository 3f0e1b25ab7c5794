package cli

import (
	"context"

	"a2atop/model"
)

// runTasks implements `a2atop tasks --json`: one sweep of every agent,
// applied to a model.Fleet as the dashboard would, printed as one JSON
// document {"agents": [...], "tasks": [...]} (tasks: interrupted first,
// then active, terminal and unclassified; newest first within each).
func runTasks(ctx context.Context, args []string, st Streams) int {
	o := newOptions("tasks", st)
	o.configFlag()
	o.requireFormat("json", "print JSON (required: the only format for now)", "JSON is the only output format for now")
	o.timeoutFlag(defaultFirstRound, "how long to wait for every agent's first sweep")
	r, code := o.firstRound(ctx, args)
	if r == nil {
		return code
	}
	fleet := model.NewFleet(model.Options{MaxHistory: -1, MaxArtifactBytes: -1, MaxTerminalPerAgent: -1, ChainKeys: r.cfg.ChainKeys()})
	for i, a := range r.cfg.Agents {
		fleet.AddAgent(r.results[i].Name, a.URL)
	}
	fleet.Apply(r.events)

	doc := struct {
		Agents []jsonAgent `json:"agents"`
		Tasks  []jsonTask  `json:"tasks"`
	}{Agents: []jsonAgent{}, Tasks: []jsonTask{}}
	status := exitOK
	for _, a := range r.results {
		j := jsonAgent{Name: a.Name, URL: a.URL, jsonHealth: newJSONHealth(a.Health), Card: newJSONCard(a.Info)}
		if !a.Answered() {
			status = exitFailed
			j.Error = a.Problem(o.timeout)
		}
		doc.Agents = append(doc.Agents, j)
	}
	q := model.Query{Sort: model.SortUpdated}
	for _, c := range []model.Class{model.ClassInterrupted, model.ClassActive, model.ClassTerminal, model.ClassUnknown} {
		for _, t := range fleet.Page(c, q, 0, fleet.Count(c, q)) {
			doc.Tasks = append(doc.Tasks, newJSONTask(fleet, t))
		}
	}
	if err := writeJSON(st.Out, doc); err != nil {
		return o.failf(exitFailed, "%v", err)
	}
	if status != exitOK {
		return o.failf(status, "some agents did not answer; see their \"error\" in the output")
	}
	return exitOK
}

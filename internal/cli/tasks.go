package cli

import (
	"context"
	"fmt"

	"a2atop/model"
)

// runTasks implements `a2atop tasks --json`: one sweep of every agent,
// applied to a model.Fleet as the dashboard would, printed as one JSON
// document {"agents": [...], "tasks": [...]} (tasks: interrupted first,
// then active, terminal and unclassified; newest first within each).
func runTasks(ctx context.Context, args []string, st Streams) int {
	fs := newFlags("tasks", st)
	cfgPath := fs.String("config", "", "config `FILE` (default $A2ATOP_CONFIG, then ~/.config/a2atop/config.toml)")
	asJSON := fs.Bool("json", false, "print JSON (required: the only format for now)")
	timeout := fs.Duration("timeout", defaultFirstRound, "how long to wait for every agent's first sweep")
	urls, err := parseArgs(fs, args)
	if err != nil {
		return flagStatus(err)
	}
	if !*asJSON {
		fmt.Fprintln(st.Err, "a2atop tasks: add --json (JSON is the only output format for now)")
		return exitUsage
	}
	if *timeout <= 0 {
		fmt.Fprintln(st.Err, "a2atop tasks: --timeout must be positive")
		return exitUsage
	}
	cfg, code := loadConfig(*cfgPath, urls, st)
	if cfg == nil {
		return code
	}
	if len(cfg.Agents) == 0 {
		fmt.Fprintln(st.Err, "a2atop tasks: no agents: pass agent base URLs, or configure [[agent]] tables (see config.example.toml)")
		return exitUsage
	}
	log, closeLog := openLog(cfg.LogPath, "tasks", st)
	defer closeLog()
	mgr, err := newManager(cfg, log)
	if err != nil {
		fmt.Fprintf(st.Err, "a2atop tasks: config: %v\n", err)
		return exitUsage
	}
	results, events := firstRound(ctx, cfg, mgr, *timeout)

	fleet := model.NewFleet(model.Options{MaxHistory: -1, MaxArtifactBytes: -1, MaxTerminalPerAgent: -1, ChainKeys: cfg.ChainKeys()})
	for _, a := range cfg.Agents {
		fleet.AddAgent(a.Name, a.URL)
	}
	fleet.Apply(events)

	doc := struct {
		Agents []jsonAgent `json:"agents"`
		Tasks  []jsonTask  `json:"tasks"`
	}{Agents: []jsonAgent{}, Tasks: []jsonTask{}}
	status := exitOK
	for _, r := range results {
		j := jsonAgent{Name: r.Name, URL: r.URL, jsonHealth: newJSONHealth(r.Health), Card: newJSONCard(r.Info)}
		if !r.Answered() {
			status = exitFailed
			j.Error = r.Problem(*timeout)
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
		fmt.Fprintf(st.Err, "a2atop tasks: %v\n", err)
		return exitFailed
	}
	if status != exitOK {
		fmt.Fprintln(st.Err, "a2atop tasks: some agents did not answer; see their \"error\" in the output")
	}
	return status
}

package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/a2aclient"
	"a2atop/internal/config"
	"a2atop/model"
)

// defaultFirstRound bounds how long check and tasks wait for every agent's
// first answer.
const defaultFirstRound = 15 * time.Second

// round is what check and tasks learn from one first round. Agents are
// under the names the commands print (agentNames) in results and events.
type round struct {
	cfg     *config.Config
	results []*agentResult // one per agent, in config order
	events  []model.Event  // every event received meanwhile
	mgr     *a2aclient.Manager
	// open is a task each agent holds that has not ended, by the
	// agent's config name (check tries a push config on it).
	open map[string]a2a.TaskID
}

// firstRound is the start that check and tasks share: it parses the
// command line (flags and agent URLs), checks --timeout and, when not
// nil, the command's own flags (a usage error), loads the configuration,
// opens the log and reaches every agent once, waiting at most --timeout.
// A nil round comes with the exit status to return.
func (o *options) firstRound(ctx context.Context, args []string, checkFlags func() error) (*round, int) {
	urls, err := o.parse(args)
	if err != nil {
		return nil, flagStatus(err)
	}
	if o.timeout <= 0 {
		return nil, o.failf(exitUsage, "--timeout must be positive")
	}
	if checkFlags != nil {
		if err := checkFlags(); err != nil {
			return nil, o.failf(exitUsage, "%v", err)
		}
	}
	s, mgr, failed, code := o.connectEach(urls)
	if s == nil {
		return nil, code
	}
	defer s.Close()
	results, events := collectFirstRound(ctx, s.cfg, mgr, failed, o.timeout)
	open := openTasks(events)
	nameAfterCards(s.cfg, results, events)
	return &round{cfg: s.cfg, results: results, events: events, mgr: mgr, open: open}, exitOK
}

// openTasks picks, per agent, a task the events show not ended.
func openTasks(events []model.Event) map[string]a2a.TaskID {
	open := map[string]a2a.TaskID{}
	for _, ev := range events {
		if ev.Kind == model.EventTask && ev.Task != nil && model.ClassOf(model.NormalizeState(ev.Task.Status.State)) != model.ClassTerminal {
			if _, ok := open[ev.Agent]; !ok {
				open[ev.Agent] = ev.Task.ID
			}
		}
	}
	return open
}

// nameAfterCards gives the agents of a first round the names the
// commands print (agentNames), in results and in events.
func nameAfterCards(cfg *config.Config, results []*agentResult, events []model.Event) {
	names := newAgentNames(cfg.Agents)
	for _, r := range results {
		card := ""
		if r.Info != nil {
			card = r.Info.CardName
		}
		names.learn(r.Name, card)
	}
	for _, r := range results {
		r.Name, _ = names.name(r.Name)
	}
	for i := range events {
		if p, ok := names.name(events[i].Agent); ok {
			events[i].Agent = p
		}
	}
}

// agentResult is what the first round learned about one agent.
type agentResult struct {
	Name, URL string
	Info      *model.AgentInfo    // nil if the card was never read
	Health    *model.HealthUpdate // the first health that is not "connecting"; nil on timeout
}

// Answered reports whether the agent's card was read and its first sweep
// or poll succeeded, or it answered that our credentials may not list
// tasks (it is reachable; the ListTasks column says the rest).
func (r *agentResult) Answered() bool {
	return r.Health != nil && (r.Health.State.Up() || r.listingRefused())
}

// listingRefused reports an agent that refused ListTasks for our
// credentials at the A2A level (-31401/-31403 or their REST and gRPC
// forms) and answered the GetTask polls that followed.
func (r *agentResult) listingRefused() bool {
	return r.Info != nil && r.Health.State == model.HealthUnauthorized && r.Health.ListingNote != ""
}

// Problem says in words what went wrong, "" when the agent answered.
func (r *agentResult) Problem(timeout time.Duration) string {
	switch {
	case r.Health == nil:
		return fmt.Sprintf("no answer within %s (is the agent running at %s?)", timeout, r.URL)
	case r.listingRefused():
		return "" // the ListTasks column says it
	case r.Answered():
		return r.Health.Err // a stream problem on an agent that answers; usually ""
	case r.Health.Err != "":
		return r.Health.Err
	default:
		return r.Health.State.String()
	}
}

// collectFirstRound runs the watchers until every agent has finished its
// first attempt (or timeout passes), then stops them. It returns one
// result per agent, in config order, and every event received meanwhile.
// An agent in failed (left out of mgr: its secrets could not be read)
// is not waited for; its result is unauthorized with the config's error.
func collectFirstRound(ctx context.Context, cfg *config.Config, mgr *a2aclient.Manager, failed map[string]error,
	timeout time.Duration) ([]*agentResult, []model.Event) {
	results := make([]*agentResult, len(cfg.Agents))
	byName := map[string]*agentResult{}
	pending := len(results)
	for i, a := range cfg.Agents {
		results[i] = &agentResult{Name: a.Name, URL: a.URL}
		byName[a.Name] = results[i]
		if err, ok := failed[a.Name]; ok {
			results[i].Health = &model.HealthUpdate{State: model.HealthUnauthorized, Err: "config: " + err.Error()}
			pending--
		}
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	stop := runWatchers(ctx, mgr)
	defer stop()

	var events []model.Event
	for pending > 0 {
		select {
		case <-ctx.Done():
			pending = 0
		case ev := <-mgr.Events():
			events = append(events, ev)
			r := byName[ev.Agent]
			switch {
			case r == nil:
			case ev.Kind == model.EventAgent && ev.Info != nil:
				r.Info = ev.Info
			case ev.Kind == model.EventHealth && ev.Health != nil && r.Health == nil &&
				ev.Health.State != model.HealthConnecting:
				r.Health = ev.Health
				pending--
			}
		}
	}
	return results, events
}

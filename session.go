package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"a2atop/a2aclient"
	"a2atop/internal/config"
	"a2atop/model"
)

// defaultFirstRound bounds how long check and tasks wait for every agent's
// first answer.
const defaultFirstRound = 15 * time.Second

// newManager resolves the config's secrets and builds the watchers. An
// error is a configuration problem (a missing token variable or file).
func newManager(cfg *config.Config, log *slog.Logger) (*a2aclient.Manager, error) {
	opts, err := cfg.AgentOptions()
	if err != nil {
		return nil, err
	}
	return a2aclient.New(opts, a2aclient.Options{Logger: log}), nil
}

// agentResult is what the first round learned about one agent.
type agentResult struct {
	Name, URL string
	Info      *model.AgentInfo    // nil if the card was never read
	Health    *model.HealthUpdate // the first health that is not "connecting"; nil on timeout
}

// Answered reports whether the agent's card was read and its first sweep
// or poll succeeded.
func (r *agentResult) Answered() bool { return r.Health != nil && r.Health.State.Up() }

// Problem says in words what went wrong, "" when the agent answered.
func (r *agentResult) Problem(timeout time.Duration) string {
	switch {
	case r.Health == nil:
		return fmt.Sprintf("no answer within %s (is the agent running at %s?)", timeout, r.URL)
	case r.Answered():
		return r.Health.Err // a stream problem on an agent that answers; usually ""
	case r.Health.Err != "":
		return r.Health.Err
	default:
		return r.Health.State.String()
	}
}

// firstRound runs the watchers until every agent has finished its first
// attempt (or timeout passes), then stops them. It returns one result per
// agent, in config order, and every event received meanwhile.
func firstRound(ctx context.Context, cfg *config.Config, mgr *a2aclient.Manager, timeout time.Duration) ([]*agentResult, []model.Event) {
	results := make([]*agentResult, len(cfg.Agents))
	byName := map[string]*agentResult{}
	for i, a := range cfg.Agents {
		results[i] = &agentResult{Name: a.Name, URL: a.URL}
		byName[a.Name] = results[i]
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	done := make(chan struct{})
	go func() { mgr.Run(runCtx); close(done) }()

	var events []model.Event
	for pending := len(results); pending > 0; {
		select {
		case <-runCtx.Done():
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
	cancel()
	for { // drain until every watcher stopped, so none blocks on a full channel
		select {
		case <-done:
			return results, events
		case <-mgr.Events():
		}
	}
}

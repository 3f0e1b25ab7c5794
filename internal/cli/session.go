package cli

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/a2aclient"
	"a2atop/approvals"
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

// readOnlySender is the approvals.Sender of the dashboard: the Manager,
// except that a reply to an agent configured read_only = true fails with
// approvals.ErrReadOnly, so the inbox records "read-only" (refused,
// nothing sent) rather than an unknown outcome it would later try to
// reconcile. The Manager refuses such replies too, with its own error.
type readOnlySender struct {
	*a2aclient.Manager
	readOnly map[string]bool // agent name -> read_only
}

// newSender wraps mgr with the per-agent read_only settings of cfg.
func newSender(cfg *config.Config, mgr *a2aclient.Manager) approvals.Sender {
	ro := map[string]bool{}
	for _, a := range cfg.Agents {
		ro[a.Name] = cfg.ReadOnly || a.ReadOnly
	}
	return readOnlySender{Manager: mgr, readOnly: ro}
}

// Reply implements approvals.Sender.
func (s readOnlySender) Reply(ctx context.Context, agent string, msg *a2a.Message) (*a2a.Task, error) {
	if s.readOnly[agent] {
		return nil, fmt.Errorf("agent %q is configured read_only: %w", agent, approvals.ErrReadOnly)
	}
	return s.Manager.Reply(ctx, agent, msg)
}

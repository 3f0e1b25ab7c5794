package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/a2aclient"
	"a2atop/internal/config"
	"a2atop/internal/sanitize"
	"a2atop/model"
)

// maxNamedMatches bounds the ids an "ambiguous" message lists.
const maxNamedMatches = 5

// taskRefError is a task argument that cannot be resolved to one task;
// code is the exit status it calls for.
type taskRefError struct {
	code int
	msg  string
}

func (e *taskRefError) Error() string { return e.msg }

// resolveTaskID returns the id of the one task on agent that arg names:
// arg itself when GetTask knows it (the caller has tried), else the one
// task, among those the agent lists, that arg names as model.ResolveID
// reads it (a start of the id, or of the short id the screens show).
// Several such tasks are a usage error that lists them (exit 2); none
// is exit 1.
// An agent that cannot list tasks (A2A 0.3 JSON-RPC) needs the full id.
func (s *session) resolveTaskID(ctx context.Context, agent config.Agent, arg string) (a2a.TaskID, error) {
	ids, res, err := s.listTaskIDs(ctx, agent)
	if err != nil {
		return "", err
	}
	matches := model.ResolveID(ids, arg)
	health := res.Health
	switch {
	case len(matches) == 1:
		return matches[0], nil
	case len(matches) > 1:
		return "", &taskRefError{code: exitUsage, msg: ambiguous(arg, matches)}
	case health == nil:
		return "", &taskRefError{code: exitFailed, msg: fmt.Sprintf(
			"task not found, and the agent did not list its tasks within %s to look for one that starts with it", s.timeout)}
	case !health.Listing:
		why := health.ListingNote
		if why == "" {
			why = health.Err
		}
		return "", &taskRefError{code: exitFailed, msg: fmt.Sprintf(
			"task not found, and the agent cannot list its tasks to look for one that starts with it: %s; give the task's full id", why)}
	case !res.Answered():
		return "", &taskRefError{code: exitFailed, msg: fmt.Sprintf(
			"task not found, and listing the agent's tasks to look for one that starts with it failed: %s", res.Problem(s.timeout))}
	}
	return "", &taskRefError{code: exitFailed, msg: fmt.Sprintf(
		"task not found: no task has this id, and none of the %d tasks the agent lists has an id or short id that starts with it", len(ids))}
}

// ambiguous is the message for several tasks that arg names.
func ambiguous(arg string, matches []a2a.TaskID) string {
	return fmt.Sprintf("ambiguous: %d tasks match %s: %s; give more of the id", len(matches), sanitize.Line(arg, 40), idList(matches))
}

// listTaskIDs sweeps agent once, as the dashboard would but without
// streams, and returns the ids of the tasks it listed (or polled) and
// what the first round learned of the agent (a nil Health when it did
// not answer within the session's timeout).
func (s *session) listTaskIDs(ctx context.Context, agent config.Agent) ([]a2a.TaskID, *agentResult, error) {
	one := *s.cfg
	one.Agents = []config.Agent{agent}
	opts, err := one.AgentOptions()
	if err != nil {
		return nil, nil, err
	}
	for i := range opts {
		opts[i].Subscribe = false // a listing needs no streams
	}
	mgr := a2aclient.New(opts, a2aclient.Options{Logger: s.log})
	results, events := collectFirstRound(ctx, &one, mgr, nil, s.timeout)
	seen := map[a2a.TaskID]bool{}
	var ids []a2a.TaskID
	for _, ev := range events {
		if ev.Kind == model.EventTask && ev.Task != nil && !seen[ev.Task.ID] {
			seen[ev.Task.ID] = true
			ids = append(ids, ev.Task.ID)
		}
	}
	return ids, results[0], nil
}

// idList names ids for a message, each by the short id the screens show
// and then in full: sanitized (they are the agent's), at most
// maxNamedMatches of them, then how many more.
func idList(ids []a2a.TaskID) string {
	var names []string
	for i, id := range ids {
		if i == maxNamedMatches {
			names = append(names, fmt.Sprintf("and %d more", len(ids)-i))
			break
		}
		name := sanitize.Line(model.ShortID(id), 40)
		if model.ShortID(id) != string(id) {
			name += " (" + sanitize.Line(string(id), 80) + ")"
		}
		names = append(names, name)
	}
	return strings.Join(names, ", ")
}

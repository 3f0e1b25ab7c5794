package cli

import (
	"context"
	"fmt"
	"slices"
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
// task, among those the agent lists, whose id starts with arg, or ends
// with it when the screens show the id's end (model.ShortID). Several
// such tasks are a usage error that lists them (exit 2); none is exit 1.
// An agent that cannot list tasks (A2A 0.3 JSON-RPC) needs the full id.
func (s *session) resolveTaskID(ctx context.Context, agent config.Agent, arg string) (a2a.TaskID, error) {
	ids, res, err := s.listTaskIDs(ctx, agent)
	if err != nil {
		return "", err
	}
	matches, how := matchTaskIDs(ids, arg)
	health := res.Health
	switch {
	case len(matches) == 1:
		return matches[0], nil
	case len(matches) > 1:
		return "", &taskRefError{code: exitUsage, msg: fmt.Sprintf("ambiguous: %d tasks %s %s: %s",
			len(matches), how, arg, idList(matches))}
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
		"task not found: no task has this id, and none of the %d tasks the agent lists starts with it", len(ids))}
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

// matchTaskIDs returns the ids that p names, sorted, and how they match
// it in words: "start with", "end with", or "match" when some do each.
// An id matches when it starts with p, or ends with p when the short id
// the screens show is its end (model.ShortID: the random end of a UUIDv7).
func matchTaskIDs(ids []a2a.TaskID, p string) ([]a2a.TaskID, string) {
	var out []a2a.TaskID
	starts, ends := false, false
	for _, id := range ids {
		s := string(id)
		switch {
		case strings.HasPrefix(s, p):
			starts = true
		case shownByEnd(id) && strings.HasSuffix(s, p):
			ends = true
		default:
			continue
		}
		out = append(out, id)
	}
	slices.Sort(out)
	how := "start with"
	switch {
	case starts && ends:
		how = "match"
	case ends:
		how = "end with"
	}
	return out, how
}

// shownByEnd reports whether the screens show id's end rather than its start.
func shownByEnd(id a2a.TaskID) bool {
	short := model.ShortID(id)
	return len(short) < len(id) && !strings.HasPrefix(string(id), short)
}

// idList names ids for a message: sanitized (they are the agent's), at
// most maxNamedMatches of them, then how many more.
func idList(ids []a2a.TaskID) string {
	var names []string
	for i, id := range ids {
		if i == maxNamedMatches {
			names = append(names, fmt.Sprintf("and %d more", len(ids)-i))
			break
		}
		names = append(names, sanitize.Line(string(id), 80))
	}
	return strings.Join(names, ", ")
}

package cli

import (
	"context"
	"time"

	"a2atop/model"
)

// runWatch implements `a2atop watch --jsonl`: every watcher event as it
// arrives, one JSON object per line, until SIGINT/SIGTERM (exit 0) or a
// write error (exit 1). A reader that closes the pipe (| head) ends the
// process by SIGPIPE, as for any Unix filter.
func runWatch(ctx context.Context, args []string, st Streams) int {
	o := newOptions("watch", st)
	o.configFlag()
	o.requireFormat("jsonl", "print one JSON object per line (required: the only format for now)", "JSON lines are the only output format for now")
	o.hubFlag()
	urls, err := o.parse(args)
	if err != nil {
		return flagStatus(err)
	}
	if o.hub != "" {
		if len(urls) > 0 {
			return o.failf(exitUsage, "%v", errHubURLs)
		}
		return watchHub(ctx, o)
	}
	s, mgr, code := o.connect(urls)
	if s == nil {
		return code
	}
	defer s.Close()
	stop := runWatchers(ctx, mgr)
	defer stop()
	w := &namedEvents{names: newAgentNames(s.cfg.Agents), held: map[string][]model.Event{}}
	settle := time.After(defaultFirstRound)
	for {
		var out []model.Event
		select {
		case <-ctx.Done():
			return exitOK
		case <-settle:
			out = w.settleAll()
		case ev := <-mgr.Events():
			out = w.add(ev)
		}
		for _, ev := range out {
			if err := writeJSON(st.Out, newJSONEvent(ev)); err != nil {
				s.log.Error("watch output failed", logKeyErr, err)
				return s.failf(exitFailed, "%v", err)
			}
		}
	}
}

// namedEvents puts watch's events under the names agentNames gives: an
// agent given only by URL is named after its card when its first attempt
// ends, so its events wait until then (and until every URL agent given
// before it is named), at most defaultFirstRound. Not safe for concurrent use.
type namedEvents struct {
	names *agentNames
	held  map[string][]model.Event // key -> events waiting for its name
}

// add takes one event and returns those that can be printed now, renamed.
func (w *namedEvents) add(ev model.Event) []model.Event {
	if name, ok := w.names.name(ev.Agent); ok {
		ev.Agent = name
		return []model.Event{ev}
	}
	w.held[ev.Agent] = append(w.held[ev.Agent], ev)
	switch {
	case ev.Kind == model.EventAgent && ev.Info != nil:
		return w.release(w.names.learn(ev.Agent, ev.Info.CardName))
	case ev.Kind == model.EventHealth && ev.Health != nil && ev.Health.State != model.HealthConnecting:
		return w.release(w.names.learn(ev.Agent, ""))
	}
	return nil
}

// settleAll names every agent still waiting after host:port, its card
// having not been read in time, and returns their events.
func (w *namedEvents) settleAll() []model.Event {
	var out []model.Event
	for _, key := range w.names.byURL {
		out = append(out, w.release(w.names.learn(key, ""))...)
	}
	return out
}

// release returns the held events of keys, renamed, in order.
func (w *namedEvents) release(keys []string) []model.Event {
	var out []model.Event
	for _, key := range keys {
		name, _ := w.names.name(key)
		for _, ev := range w.held[key] {
			ev.Agent = name
			out = append(out, ev)
		}
		delete(w.held, key)
	}
	return out
}

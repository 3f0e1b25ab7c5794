package common

import (
	"time"

	"a2atop/model"
)

// ActivityMinutes is how far back Activity counts: an hour.
const ActivityMinutes = 60

// Activity counts the watchers' events per agent and minute over the
// last hour, for the agents view's sparklines. The root counts every
// batch it applies (Count), on the UI goroutine; screens read it there.
// The zero value is ready to use. It is not safe for concurrent use.
type Activity struct {
	agents map[string]*agentActivity
	last   *agentActivity // the agent of the previous event: batches come per agent
}

// agentActivity is one agent's ring of minutes.
type agentActivity struct {
	name   string
	counts [ActivityMinutes]uint32
	minute int64 // the Unix minute of the newest slot
}

// Count counts a batch of events by their agent and arrival time. It
// costs a comparison and an increment per event.
func (a *Activity) Count(events []model.Event) {
	for i := range events {
		ev := &events[i]
		if ev.Kind == model.EventHealth || ev.Kind == model.EventAgent || ev.At.IsZero() {
			continue // the watcher's own news, not the agent's work
		}
		at := a.agent(ev.Agent)
		at.add(ev.At.Unix() / 60)
	}
}

func (a *Activity) agent(name string) *agentActivity {
	if a.last != nil && a.last.name == name {
		return a.last
	}
	if a.agents == nil {
		a.agents = map[string]*agentActivity{}
	}
	at := a.agents[name]
	if at == nil {
		at = &agentActivity{name: name}
		a.agents[name] = at
	}
	a.last = at
	return at
}

// add counts one event in minute m; an event older than the hour is
// not counted.
func (at *agentActivity) add(m int64) {
	switch {
	case m > at.minute:
		at.advance(m)
	case m <= at.minute-ActivityMinutes:
		return
	}
	at.counts[m%ActivityMinutes]++
}

// advance moves the newest slot to minute m, clearing what passed.
func (at *agentActivity) advance(m int64) {
	if at.minute == 0 || m-at.minute >= ActivityMinutes {
		at.counts = [ActivityMinutes]uint32{}
	} else {
		for x := at.minute + 1; x <= m; x++ {
			at.counts[x%ActivityMinutes] = 0
		}
	}
	at.minute = m
}

// PerMinute is agent's events in each of the last hour's minutes at
// now, oldest first; the last is the minute now is in.
func (a *Activity) PerMinute(agent string, now time.Time) [ActivityMinutes]uint32 {
	var out [ActivityMinutes]uint32
	at := a.agents[agent]
	if at == nil {
		return out
	}
	m := now.Unix() / 60
	for i := range ActivityMinutes {
		x := m - int64(ActivityMinutes-1-i)
		if x <= at.minute && x > at.minute-ActivityMinutes {
			out[i] = at.counts[x%ActivityMinutes]
		}
	}
	return out
}

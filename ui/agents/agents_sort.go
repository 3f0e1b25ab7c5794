package agents

import (
	"cmp"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"

	"a2atop/model"
	"a2atop/ui/common"
)

// The columns the agents list sorts by.
const (
	agentColConfig = iota // the config's order
	agentColName
	agentColHealth
	agentColActive
	agentColWaiting
	agentColEvents
)

// AgentSortKeys sort the agents list by one column (shift and the
// column's letter; again reverses), as the tasks panes do.
type AgentSortKeys struct {
	Config, Name, Health, Active, Waiting, Events key.Binding
}

// DefaultAgentSortKeys are C (the config's order), N, H, A, W and E.
func DefaultAgentSortKeys() AgentSortKeys {
	return AgentSortKeys{
		Config:  common.Bind("C", "sort as configured", "C"),
		Name:    common.Bind("N", "sort by name", "N"),
		Health:  common.Bind("H", "sort by health", "H"),
		Active:  common.Bind("A", "sort by active tasks", "A"),
		Waiting: common.Bind("W", "sort by waiting tasks", "W"),
		Events:  common.Bind("E", "sort by events this hour", "E"),
	}
}

func (k AgentSortKeys) columns() []common.SortColumn {
	return []common.SortColumn{{Name: "CONFIG", Key: k.Config}, {Name: "NAME", Key: k.Name}, {Name: "HEALTH", Key: k.Health},
		{Name: "ACTIVE", Key: k.Active, Desc: true}, {Name: "WAITING", Key: k.Waiting, Desc: true}, {Name: "EVENTS", Key: k.Events, Desc: true}}
}

// sorted puts the agents in the list's order; the config's order breaks
// ties.
func (v *Screen) sorted(as []*model.Agent) []*model.Agent {
	col := v.sort.Col()
	if col == agentColConfig && !v.sort.Desc() {
		return as
	}
	var events map[string]uint32
	if col == agentColEvents {
		events = make(map[string]uint32, len(as))
		now := v.ctx.Now()
		for _, a := range as {
			per := v.ctx.Activity.PerMinute(a.Name, now)
			for _, n := range per {
				events[a.Name] += n
			}
		}
	}
	pos := make(map[*model.Agent]int, len(as))
	for i, a := range as {
		pos[a] = i
	}
	out := slices.Clone(as)
	slices.SortStableFunc(out, func(a, b *model.Agent) int {
		var c int
		switch col {
		case agentColName:
			c = strings.Compare(a.Name, b.Name)
		case agentColHealth:
			c = cmp.Compare(a.Health.State, b.Health.State)
		case agentColActive:
			c = cmp.Compare(a.Counts[model.ClassActive], b.Counts[model.ClassActive])
		case agentColWaiting:
			c = cmp.Compare(a.Counts[model.ClassInterrupted], b.Counts[model.ClassInterrupted])
		case agentColEvents:
			c = cmp.Compare(events[a.Name], events[b.Name])
		default:
			c = cmp.Compare(pos[a], pos[b])
		}
		if v.sort.Desc() {
			c = -c
		}
		return c
	})
	return out
}

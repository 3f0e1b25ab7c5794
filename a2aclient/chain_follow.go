package a2aclient

import (
	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
)

// maxNotHere bounds the referenced task ids a watcher remembers as not
// its own; past it the set starts over.
const maxNotHere = 1024

// taskRefs returns the task ids t says it waits on, as package model reads
// chains: referenceTaskIds of its status message and of its history
// messages, and the value (an id or a list of ids) of the agent's chain
// metadata key in those messages' and the task's metadata. A terminal
// task waits on nothing.
func taskRefs(t *a2a.Task, chainKey string) []a2a.TaskID {
	if t == nil || model.ClassOf(model.NormalizeState(t.Status.State)) == model.ClassTerminal {
		return nil
	}
	var ids []a2a.TaskID
	msg := func(m *a2a.Message) {
		if m == nil {
			return
		}
		ids = append(ids, m.ReferenceTasks...)
		ids = append(ids, metaRefs(m.Metadata, chainKey)...)
	}
	msg(t.Status.Message)
	for _, m := range t.History {
		msg(m)
	}
	return append(ids, metaRefs(t.Metadata, chainKey)...)
}

func metaRefs(md map[string]any, key string) []a2a.TaskID {
	if key == "" || md == nil {
		return nil
	}
	switch v := md[key].(type) {
	case string:
		return []a2a.TaskID{a2a.TaskID(v)}
	case []string:
		ids := make([]a2a.TaskID, len(v))
		for i, s := range v {
			ids[i] = a2a.TaskID(s)
		}
		return ids
	case []any:
		var ids []a2a.TaskID
		for _, x := range v {
			if s, ok := x.(string); ok {
				ids = append(ids, a2a.TaskID(s))
			}
		}
		return ids
	}
	return nil
}

// followRefs makes the tasks t refers to watched on the agents that
// cannot list tasks (A2A 0.3 JSON-RPC, or credentials that may not list):
// a referenced task may live on any agent, and agents that list find
// their own by sweeping. A task already known to some watcher is left
// alone; a watcher that answered TaskNotFound for an id is not asked
// again (and reports no "gone" for it: it never had it).
func (m *Manager) followRefs(t *a2a.Task, chainKey string) {
	for _, id := range taskRefs(t, chainKey) {
		if id == "" || id == t.ID || m.known(id) {
			continue
		}
		for _, name := range m.order {
			if w := m.watchers[name]; !w.lists() {
				w.rememberRef(id)
			}
		}
	}
}

// known reports whether any watcher holds id.
func (m *Manager) known(id a2a.TaskID) bool {
	for _, w := range m.watchers {
		w.mu.Lock()
		ok := w.tasks.get(id) != nil
		w.mu.Unlock()
		if ok {
			return true
		}
	}
	return false
}

// lists reports whether the agent's card was read and it lists tasks for
// us. An agent not connected yet may turn out not to list: it counts as
// one that does not, so a reference seen before its card is read still
// reaches it (an agent that lists, asked once, answers TaskNotFound and
// is not asked again).
func (w *watcher) lists() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.info != nil && w.listing && !w.listDenied
}

// rememberRef watches id as a task this agent may hold, unless it said
// it does not.
func (w *watcher) rememberRef(id a2a.TaskID) {
	if !w.sendable(id) {
		return
	}
	w.mu.Lock()
	if w.notHere[id] || w.tasks.watch(id, true) == nil {
		w.mu.Unlock()
		return // known, said not to be here, or too many references already
	}
	w.mu.Unlock()
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// notFound handles TaskNotFound for id: a task this agent was only
// asked about because another task referred to it is dropped quietly;
// any other is reported gone.
func (w *watcher) notFound(id a2a.TaskID) {
	w.mu.Lock()
	m := w.tasks.get(id)
	ref := m != nil && m.ref && !m.seen
	if ref {
		w.tasks.remove(id)
		if len(w.notHere) >= maxNotHere {
			clear(w.notHere)
		}
		w.notHere[id] = true
	}
	w.mu.Unlock()
	if !ref {
		w.gone(id)
	}
}

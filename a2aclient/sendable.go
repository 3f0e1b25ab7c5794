package a2aclient

import (
	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
)

// maxBadIDs bounds the refused task ids a watcher remembers having
// logged; past it, it starts over (and logs them again).
const maxBadIDs = 64

// sendable reports whether the watcher can ask the agent after task id
// (model.CheckTaskID). A task it cannot is left out of everything it
// watches and reports, and the log says so once: asking would be refused
// at every sweep, and the agent would look unwell for one task's id.
func (w *watcher) sendable(id a2a.TaskID) bool {
	err := model.CheckTaskID(string(id))
	if err == nil {
		return true
	}
	w.mu.Lock()
	logged := w.badIDs[id]
	if !logged {
		if w.badIDs == nil || len(w.badIDs) >= maxBadIDs {
			w.badIDs = map[a2a.TaskID]bool{}
		}
		w.badIDs[id] = true
	}
	w.mu.Unlock()
	if !logged {
		w.log.Warn("the agent names a task a2atop cannot ask after; it is left out", "err", err.Error())
	}
	return false
}

package hub

import (
	"net/http"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/approvals"
	"a2atop/model"
)

// The hub's edge takes an agent name and a task id only when a2atop can
// send them faithfully (model.CheckID: not empty, at most
// model.MaxIDBytes, UTF-8, no control character, not "." or ".."). Each
// route checks what its request names first, before a role, a watcher,
// the journal or the feed sees it, and refuses in words with 400. An id
// that passes may still look like a path ("../../admin?x=1"): the
// watchers send it as one path segment (a2aclient/edge/task_id_segment.go).

// namesOK writes the 400 of a request whose agent name or task id a2atop
// cannot take, and reports whether both are fine.
func namesOK(w http.ResponseWriter, agent string, task a2a.TaskID) bool {
	if err := checkNames(agent, task); err != nil {
		writeError(w, http.StatusBadRequest, err.Error()+"; nothing was done")
		return false
	}
	return true
}

// agentOK is namesOK for a request that names an agent only.
func agentOK(w http.ResponseWriter, agent string) bool {
	if err := model.CheckID("agent name", agent); err != nil {
		writeError(w, http.StatusBadRequest, err.Error()+"; nothing was done")
		return false
	}
	return true
}

// checkNames checks an agent name and a task id.
func checkNames(agent string, task a2a.TaskID) error {
	if err := model.CheckID("agent name", agent); err != nil {
		return err
	}
	return model.CheckTaskID(string(task))
}

// decisionOK writes the refusal (an Outcome, 400) of a decision whose
// agent or task a2atop cannot take, and reports whether they are fine. A
// decision that starts a task names none; one that names none otherwise
// is refused later, as a task the hub does not know.
func (h *Hub) decisionOK(w http.ResponseWriter, d *approvals.Decision) bool {
	err := model.CheckID("agent name", d.Agent)
	if err == nil && d.TaskID != "" {
		err = model.CheckTaskID(string(d.TaskID))
	}
	if err != nil {
		r := h.refuse(d, http.StatusBadRequest, approvals.ProblemRejected, "%v; nothing was sent", err)
		r.out.Agent, r.out.TaskID = "", "" // not echoed back: the words quote them
		writeJSON(w, r.status, r.out)
		return false
	}
	return true
}

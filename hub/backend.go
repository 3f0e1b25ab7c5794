package hub

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// callTimeout bounds a GetTask or CancelTask the hub makes for a
// dashboard.
const callTimeout = 30 * time.Second

// serveTask is GET /v1/task?agent=A&id=ID&history=N&artifacts=1: GetTask
// through the hub's watchers (a dashboard's detail view).
func (h *Hub) serveTask(w http.ResponseWriter, r *http.Request, op *Operator) {
	q := r.URL.Query()
	agent, id := q.Get("agent"), a2a.TaskID(q.Get("id"))
	if !namesOK(w, agent, id) || !h.agentAllowed(w, op, agent, RoleWatch) {
		return
	}
	hist, _ := strconv.Atoi(q.Get("history"))
	ctx, cancel := context.WithTimeout(r.Context(), callTimeout)
	defer cancel()
	t, err := h.o.Watchers.Get(ctx, agent, id, hist, q.Get("artifacts") == "1")
	writeTask(w, t, err)
}

// serveCancel is POST /v1/cancel: CancelTask through the hub.
func (h *Hub) serveCancel(w http.ResponseWriter, r *http.Request, op *Operator) {
	var c CancelRequest
	if !readJSON(w, r, &c) {
		return
	}
	if !namesOK(w, c.Agent, c.Task) || !h.agentAllowed(w, op, c.Agent, RoleCancel) {
		return
	}
	ctx, cancel := context.WithTimeout(h.context(), callTimeout) // a cancel asked for goes on if the dashboard hangs up
	defer cancel()
	t, err := h.o.Watchers.Cancel(ctx, c.Agent, c.Task)
	h.log.Info("cancel", "operator", op.Name, "agent", c.Agent, "task", string(c.Task), "ok", err == nil)
	writeTask(w, t, err)
}

// serveCapture is GET /v1/capture?agent=A: the agent's last raw
// exchanges, secrets redacted as the watchers record them.
func (h *Hub) serveCapture(w http.ResponseWriter, r *http.Request, op *Operator) {
	agent := r.URL.Query().Get("agent")
	if !agentOK(w, agent) || !h.agentAllowed(w, op, agent, RoleWatch) {
		return
	}
	writeJSON(w, http.StatusOK, Capture{Exchanges: h.o.Watchers.Capture(agent)})
}

// agentAllowed writes a 404 for an agent the hub does not watch and a
// 403 for a role the operator lacks on it.
func (h *Hub) agentAllowed(w http.ResponseWriter, op *Operator, agent string, r Role) bool {
	switch {
	case !h.agents[agent]:
		writeError(w, http.StatusNotFound, "this hub watches no agent "+strconv.Quote(agent))
		return false
	case !op.may(agent, r):
		writeError(w, http.StatusForbidden, op.forbidden(agent, r))
		return false
	}
	return true
}

// writeTask answers a GetTask or a CancelTask: the task, and the error
// in words with what a dashboard tells apart.
func writeTask(w http.ResponseWriter, t *a2a.Task, err error) {
	ans := TaskAnswer{Task: t}
	status := http.StatusOK
	if err != nil {
		status = http.StatusBadGateway
		ans.Error = err.Error()
		var rpc interface{ RPCCode() int }
		if errors.As(err, &rpc) {
			ans.Code = rpc.RPCCode()
		}
		ans.NotFound = errors.Is(err, a2a.ErrTaskNotFound)
		ans.NotCancelable = errors.Is(err, a2a.ErrTaskNotCancelable)
	}
	writeJSON(w, status, ans)
}

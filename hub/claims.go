package hub

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"a2atop/approvals"
	"a2atop/model"
)

// Claim words an operator may use.
var claimWhats = []string{"answering", "approving", "denying"}

// serveClaim is POST /v1/claims: the operator opened the reply editor
// or a confirmation on a task. A claim informs the others; it blocks no
// one. It lasts ClaimTTL from its last renewal (the same request again).
// It names a task the hub's fleet holds that waits on a person, in words
// the operator's roles there allow; an operator holds at most
// MaxClaimsPerOperator.
func (h *Hub) serveClaim(w http.ResponseWriter, r *http.Request, op *Operator) {
	var c ClaimRequest
	if !readJSON(w, r, &c) || !namesOK(w, c.Agent, c.Task) {
		return
	}
	if c.What == "" {
		c.What = "answering"
	}
	if !slices.Contains(claimWhats, c.What) {
		writeError(w, http.StatusBadRequest, "a claim says "+strings.Join(claimWhats, ", ")+"; not "+c.What)
		return
	}
	if !h.mayDecide(w, op, c.Agent) {
		return
	}
	var status int
	var refusal string
	if err := h.call(r.Context(), func() { status, refusal = h.claimable(op, c) }); err != nil {
		writeError(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	if refusal != "" {
		writeError(w, status, refusal)
		return
	}
	cl, held := h.claim(op.Name, c)
	if held > 0 {
		writeError(w, http.StatusTooManyRequests, fmt.Sprintf("operator %s holds %d claims already, the most the hub keeps for one operator; close a dialog (its claim ends) or wait %s for the idle ones to end",
			op.Name, held, h.o.ClaimTTL))
		return
	}
	h.shareClaim(cl)
	writeJSON(w, http.StatusOK, cl)
}

// claimWhat is the decision a claim's words stand for.
var claimWhat = map[string]approvals.Kind{"answering": approvals.KindReply, "approving": approvals.KindApprove, "denying": approvals.KindDeny}

// claimable says why op may not claim c, with the status; "" when it
// may: the fleet holds the task, it waits on a person, and the decision
// the claim names is one op's roles allow there. It runs on the loop.
func (h *Hub) claimable(op *Operator, c ClaimRequest) (int, string) {
	t := h.fleet.Task(model.TaskKey{Agent: c.Agent, ID: c.Task})
	switch {
	case t == nil:
		return http.StatusNotFound, fmt.Sprintf("the hub does not hold task %s of agent %s; a claim is on a task in the inbox", c.Task, c.Agent)
	case t.Class != model.ClassInterrupted:
		return http.StatusConflict, fmt.Sprintf("task %s of agent %s waits on no one (it is %s); a claim is on a task in the inbox", c.Task, c.Agent, model.ShortState(t.State))
	}
	if role := roleFor(claimWhat[c.What], t.State); !op.may(c.Agent, role) {
		return http.StatusForbidden, op.forbidden(c.Agent, role)
	}
	return 0, ""
}

// serveRelease is DELETE /v1/claims: the operator closed the dialog.
func (h *Hub) serveRelease(w http.ResponseWriter, r *http.Request, op *Operator) {
	var c ClaimRequest
	if !readJSON(w, r, &c) || !namesOK(w, c.Agent, c.Task) {
		return
	}
	h.release(claimKey{c.Agent, string(c.Task), op.Name}, "closed")
	h.unshareClaim(claimKey{c.Agent, string(c.Task), op.Name})
	w.WriteHeader(http.StatusNoContent)
}

// mayDecide writes the refusal of an operator who may neither answer
// nor approve on agent.
func (h *Hub) mayDecide(w http.ResponseWriter, op *Operator, agent string) bool {
	switch {
	case !h.agents[agent]:
		writeError(w, http.StatusNotFound, "this hub watches no agent "+agent)
		return false
	case !op.may(agent, RoleAnswer) && !op.may(agent, RoleApprove):
		writeError(w, http.StatusForbidden, op.forbidden(agent, RoleAnswer))
		return false
	}
	return true
}

// claim takes or renews a claim; a new one, or one that now says another
// thing, goes on the feed. A new claim of an operator who holds
// MaxClaimsPerOperator is not taken: held is how many it holds then.
func (h *Hub) claim(operator string, c ClaimRequest) (cl Claim, held int) {
	now := h.o.Now().UTC()
	k := claimKey{c.Agent, string(c.Task), operator}
	h.feed.mu.Lock()
	defer h.feed.mu.Unlock()
	old, had := h.feed.claims[k]
	if !had {
		n := 0
		for k := range h.feed.claims {
			if k.operator == operator {
				n++
			}
		}
		if n >= h.o.MaxClaimsPerOperator {
			return Claim{}, n
		}
	}
	cl = Claim{Agent: c.Agent, Task: c.Task, Operator: operator, What: c.What, At: now, Until: now.Add(h.o.ClaimTTL)}
	if had && old.What == c.What {
		cl.At = old.At
	}
	h.feed.claims[k] = cl
	if !had || old.What != c.What {
		h.feed.appendLocked(entry{name: EventClaim, agent: c.Agent, data: encode(cl)})
	}
	return cl, 0
}

// release ends a claim, saying why on the feed.
func (h *Hub) release(k claimKey, reason string) {
	h.feed.mu.Lock()
	defer h.feed.mu.Unlock()
	h.releaseLocked(k, reason)
}

func (h *Hub) releaseLocked(k claimKey, reason string) {
	c, ok := h.feed.claims[k]
	if !ok {
		return
	}
	delete(h.feed.claims, k)
	h.feed.appendLocked(entry{name: EventRelease, agent: c.Agent,
		data: encode(Release{Agent: c.Agent, Task: c.Task, Operator: c.Operator, Reason: reason})})
}

// expireClaims releases the claims not renewed within ClaimTTL.
func (h *Hub) expireClaims() {
	now := h.o.Now()
	h.feed.mu.Lock()
	defer h.feed.mu.Unlock()
	for k, c := range h.feed.claims {
		if now.After(c.Until) {
			h.releaseLocked(k, "idle")
		}
	}
}

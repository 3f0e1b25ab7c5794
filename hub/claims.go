package hub

import (
	"net/http"
	"slices"
	"strings"
)

// Claim words an operator may use.
var claimWhats = []string{"answering", "approving", "denying"}

// serveClaim is POST /v1/claims: the operator opened the reply editor
// or a confirmation on a task. A claim informs the others; it blocks no
// one. It lasts ClaimTTL from its last renewal (the same request again).
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
	writeJSON(w, http.StatusOK, h.claim(op.Name, c))
}

// serveRelease is DELETE /v1/claims: the operator closed the dialog.
func (h *Hub) serveRelease(w http.ResponseWriter, r *http.Request, op *Operator) {
	var c ClaimRequest
	if !readJSON(w, r, &c) || !namesOK(w, c.Agent, c.Task) {
		return
	}
	h.release(claimKey{c.Agent, string(c.Task), op.Name}, "closed")
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
// thing, goes on the feed.
func (h *Hub) claim(operator string, c ClaimRequest) Claim {
	now := h.o.Now().UTC()
	k := claimKey{c.Agent, string(c.Task), operator}
	h.feed.mu.Lock()
	defer h.feed.mu.Unlock()
	old, had := h.feed.claims[k]
	cl := Claim{Agent: c.Agent, Task: c.Task, Operator: operator, What: c.What, At: now, Until: now.Add(h.o.ClaimTTL)}
	if had && old.What == c.What {
		cl.At = old.At
	}
	h.feed.claims[k] = cl
	if !had || old.What != c.What {
		h.feed.appendLocked(entry{name: EventClaim, agent: c.Agent, data: encode(cl)})
	}
	return cl
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

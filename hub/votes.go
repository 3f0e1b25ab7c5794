package hub

import (
	"net/http"

	"a2atop/approvals"
)

// Votes. Under an agent's approval policy an approve or deny is a vote
// (approvals.Policy). It comes through the decide path like any
// decision: the role, the prompt, the message rebuilt for the operator;
// then the hub's Service counts the votes again and records this one
// under the journal's exclusive hold (a compare-and-set on a shared
// store), and sends only the vote that completes the policy. Votes on
// one prompt take their turn here, one after another, where decisions
// come second and are refused.

// operatorGroups is each operator's groups, by name, over those the
// journal's options give already.
func operatorGroups(ops []Operator, given map[string][]string) map[string][]string {
	out := map[string][]string{}
	for name, g := range given {
		out[name] = g
	}
	for _, op := range ops {
		if len(op.Groups) > 0 {
			out[op.Name] = op.Groups
		}
	}
	return out
}

// firstVote makes the vote want the one being recorded on its prompt,
// once what is being recorded or sent there now has ended (within its
// send timeouts); after two such waits it is refused, nothing recorded.
func (h *Hub) firstVote(key string, want *approvals.Decision) (*deciding, *refusal) {
	for range 2 {
		mine, cur := h.take(key, want)
		if mine != nil {
			return mine, nil
		}
		if cur.messageID == want.MessageID {
			return nil, h.refuse(want, http.StatusConflict, approvals.ProblemInFlight, "vote %s is being recorded already", want.MessageID)
		}
		<-cur.done // a vote is recorded, or the approval it completes sent, within the send timeouts
	}
	return nil, h.refuse(want, http.StatusServiceUnavailable, approvals.ProblemHub,
		"other votes on this prompt are being recorded; nothing was recorded: vote again in a moment")
}

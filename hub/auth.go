package hub

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// Role is what an operator may do on an agent.
type Role string

// The roles. Answer, approve and cancel each include watch.
const (
	RoleWatch   Role = "watch"   // see the agent's tasks, the journal of its decisions, its capture
	RoleAnswer  Role = "answer"  // reply to INPUT_REQUIRED
	RoleApprove Role = "approve" // approve, deny or reply to AUTH_REQUIRED
	RoleCancel  Role = "cancel"  // cancel its tasks
)

// Roles are every role, in the order messages list them.
var Roles = []Role{RoleWatch, RoleAnswer, RoleApprove, RoleCancel}

// AllAgents is the agent name that stands for every agent in Operator.Roles.
const AllAgents = "*"

// Operator is one person (or script) the hub serves: a name, the hash of
// its bearer token (the token itself is never kept) and its roles by
// agent name, AllAgents standing for every agent without an entry of its
// own. Groups are the groups it is in, for an agent's approval policy
// (approvals.Policy.Approvers).
type Operator struct {
	Name      string
	TokenHash [sha256.Size]byte
	Roles     map[string][]Role
	Groups    []string
}

// people counts the operators by name: an operator may have more than
// one entry (`a2atop serve` adds one with the token of its SSH
// sessions), each the same person.
func people(ops []Operator) int {
	names := make(map[string]bool, len(ops))
	for _, op := range ops {
		names[op.Name] = true
	}
	return len(names)
}

// HashToken is the hash an Operator keeps of its token.
func HashToken(token string) [sha256.Size]byte { return sha256.Sum256([]byte(token)) }

// allows reports whether roles allow r on agent: the agent's own entry
// when it has one, else AllAgents'. Watch is in every other role, and
// "" (what names no agent, such as a damaged journal line) may be
// watched by whoever may watch something.
func allows(roles map[string][]Role, agent string, r Role) bool {
	if agent == "" && r == RoleWatch {
		for _, rs := range roles {
			if len(rs) > 0 {
				return true
			}
		}
		return false
	}
	rs, ok := roles[agent]
	if !ok {
		rs = roles[AllAgents]
	}
	return slices.Contains(rs, r) || r == RoleWatch && len(rs) > 0
}

// may reports whether the operator may act in role r on agent.
func (o *Operator) may(agent string, r Role) bool { return allows(o.Roles, agent, r) }

// anywhere reports whether the operator may act in role r on some agent.
func (o *Operator) anywhere(r Role) bool {
	for _, rs := range o.Roles {
		if slices.Contains(rs, r) || r == RoleWatch && len(rs) > 0 {
			return true
		}
	}
	return false
}

// forbidden says why the operator may not act in role r on agent.
func (o *Operator) forbidden(agent string, r Role) string {
	rs, ok := o.Roles[agent]
	if !ok {
		rs = o.Roles[AllAgents]
	}
	have := "none"
	if len(rs) > 0 {
		names := make([]string, len(rs))
		for i, x := range rs {
			names[i] = string(x)
		}
		have = strings.Join(names, ", ")
	}
	return fmt.Sprintf("operator %s may not %s on agent %s (roles there: %s); the hub's config gives roles in [[operator]] tables", o.Name, r, agent, have)
}

// operators finds the operator of a bearer token. Every operator's hash
// is compared, in constant time, whatever matches: how long it takes
// says nothing about which token is close.
type operators []Operator

func (ops operators) find(token string) *Operator {
	h := HashToken(token)
	var found *Operator
	for i := range ops {
		if subtle.ConstantTimeCompare(h[:], ops[i].TokenHash[:]) == 1 && found == nil {
			found = &ops[i]
		}
	}
	return found
}

// The words of a 401. They never repeat what the request sent.
const (
	noToken  = "no operator token: send Authorization: Bearer TOKEN (a2atop --hub reads it from $A2ATOP_HUB_TOKEN or hub_token_file)"
	badToken = "the token is not one of this hub's operators' tokens: check $A2ATOP_HUB_TOKEN or hub_token_file"
)

// authenticate returns the operator of the request's bearer token, or
// writes a 401 and returns nil.
func (ops operators) authenticate(w http.ResponseWriter, r *http.Request) *Operator {
	auth := r.Header.Get("Authorization")
	scheme, token, ok := strings.Cut(auth, " ")
	if auth == "" || !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		w.Header().Set("WWW-Authenticate", `Bearer realm="a2atop hub"`)
		writeError(w, http.StatusUnauthorized, noToken)
		return nil
	}
	op := ops.find(strings.TrimSpace(token))
	if op == nil {
		w.Header().Set("WWW-Authenticate", `Bearer realm="a2atop hub", error="invalid_token"`)
		writeError(w, http.StatusUnauthorized, badToken)
		return nil
	}
	return op
}

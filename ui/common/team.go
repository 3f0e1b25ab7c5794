package common

import (
	"context"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// Team is the hub a dashboard is attached to (a2atop --hub), as the
// screens need it: who the operator is, whether the feed is up, what
// the operator may do on each agent, and the soft claims the team holds
// ("bob is answering"). *hubclient.Client satisfies it. A local
// dashboard has none (Context.Team is nil) and nothing of this shows.
//
// Every method but Claim and Release reads memory and may be called
// from Update and View; Claim and Release make a request and run in a
// tea.Cmd.
type Team interface {
	// URL is the hub's base URL; Operator the operator the token is.
	URL() string
	Operator() string
	// Connected reports whether the hub's feed is up and, when it is
	// not, why.
	Connected() (bool, string)
	// May reports whether the operator may act in role (RoleAnswer,
	// RoleApprove, RoleCancel) on agent. The hub checks again.
	May(agent, role string) bool
	// Claim tells the team the operator is at work on a task ("answering",
	// "approving", "denying"); calling it again renews it. Release ends it.
	Claim(ctx context.Context, agent string, id a2a.TaskID, what string) error
	Release(ctx context.Context, agent string, id a2a.TaskID) error
	// ClaimWords says who else is at work on a task ("bob is
	// answering"); "" when nobody else is. ClaimsVersion changes
	// whenever the claims do.
	ClaimWords(agent string, id a2a.TaskID) string
	ClaimsVersion() uint64
}

// The roles a hub's operator holds per agent, as Team.May takes them.
const (
	RoleAnswer  = "answer"  // reply to input-required
	RoleApprove = "approve" // approve, deny or reply to auth-required
	RoleCancel  = "cancel"
)

// RoleFor is the role an answer to a task in state needs: approving,
// denying or answering an authorization is the approver's.
func RoleFor(state a2a.TaskState) string {
	if state == a2a.TaskStateAuthRequired {
		return RoleApprove
	}
	return RoleAnswer
}

// May reports whether the dashboard offers writes in role to agent: the
// agent is writable here (Writable) and, attached to a hub, the
// operator's roles allow it. It hides keys; it does not look at whether
// the hub is reachable now (a key pressed then says so: Refusal).
func (c Context) May(agent, role string) bool {
	return c.Writable(agent) && (c.Team == nil || c.Team.May(agent, role))
}

// MayAnywhere reports whether role is allowed on at least one agent of
// the fleet: the help lists a key only then.
func (c Context) MayAnywhere(role string) bool {
	if c.Team == nil {
		return !c.ReadOnly
	}
	for _, a := range c.Fleet.Agents() {
		if c.May(a.Name, role) {
			return true
		}
	}
	return false
}

// Refusal says why a write in role to agent is refused now, "" when it
// may go: read-only here, the operator's roles on a hub, the hub
// unreachable (the dashboard then sends nothing until it is back), or,
// for a decision, the team's record unreachable at the hub (RecordDown).
func (c Context) Refusal(agent, role string) string {
	switch {
	case !c.Writable(agent):
		return c.ReadOnlyWords(agent)
	case c.Team == nil:
		return ""
	case !c.Team.May(agent, role):
		return "operator " + c.Team.Operator() + " may not " + role + " on agent " + agent + " (the hub's roles): nothing is sent"
	}
	if w := c.TeamDown(); w != "" || role == RoleCancel { // a cancel goes to the agent: it needs no record
		return w
	}
	return c.RecordDown()
}

// TeamDown says, while the hub's feed is down, that nothing is sent and
// why; "" when it is up or there is no hub.
func (c Context) TeamDown() string {
	if c.Team == nil {
		return ""
	}
	up, why := c.Team.Connected()
	if up {
		return ""
	}
	return "not sent: the hub at " + c.Team.URL() + " is unreachable (" + TeamWhy(c.Team.URL(), why) + "); nothing is sent until it is back"
}

// TeamRecord is a hub that says whether it can reach the team's record
// it keeps its journal in (a shared journal in NATS JetStream), and when
// it cannot, since when (by the hub's clock) and why: while it cannot,
// the hub refuses every decision and sends nothing, and tries again by
// itself. *hubclient.Client satisfies it; a hub that does not say is
// taken to reach its record.
type TeamRecord interface {
	RecordReachable() (bool, time.Time, string)
}

// RecordDown says, while the hub cannot reach the team's record, that a
// decision is not sent and why; "" when it can, or says nothing of it,
// and without a hub.
func (c Context) RecordDown() string {
	tr, ok := c.Team.(TeamRecord)
	if !ok {
		return ""
	}
	up, since, _ := tr.RecordReachable()
	if up {
		return ""
	}
	// The hub's own words for a decision it refuses so, then since when:
	// 79 cells, a footer of 80 holds it; the banner says the rest.
	return "not sent: the team's record is unreachable at the hub since " + since.UTC().Format("15:04:05Z") + "; retrying"
}

// TeamWhy is why the hub at url is unreachable, without the words that
// name the hub again ("the hub at URL cannot be reached: "), which the
// banner and a refusal say themselves.
func TeamWhy(url, why string) string {
	why = strings.TrimSpace(why)
	why = strings.TrimPrefix(why, "the hub at "+url+" ")
	why = strings.TrimPrefix(why, "cannot be reached: ")
	if why == "" {
		return "not connected yet"
	}
	return why
}

package common

import (
	"context"
	"log/slog"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
	"a2atop/ui/theme"
)

// Backend is what the UI needs from the network. *a2aclient.Manager
// satisfies it. Every call is made from a tea.Cmd, never from Update.
type Backend interface {
	// Get fetches a task (GetTask) with up to historyLength history
	// messages (0 = the server's default) and, when withArtifacts, its
	// artifacts.
	Get(ctx context.Context, agent string, id a2a.TaskID, historyLength int, withArtifacts bool) (*a2a.Task, error)
	// Cancel asks the agent to cancel the task and returns what the task
	// is afterwards (GetTask), with the cancel error if it was not stopped.
	Cancel(ctx context.Context, agent string, id a2a.TaskID) (*a2a.Task, error)
	// Capture returns the last raw exchanges with the agent, newest last.
	Capture(agent string) []model.Exchange
}

// Context is what every Component is built with. The Fleet is owned by
// the UI goroutine: components read it in Update and View only, never
// from a tea.Cmd, and never change it (the root applies, see ApplyMsg).
// The zero value is not usable; the root model fills it.
type Context struct {
	Fleet    *model.Fleet
	Theme    *theme.Theme
	ReadOnly bool             // hide and disable every key that writes to an agent
	Now      func() time.Time // the clock; tests fix it
	Backend  Backend
	// Log receives what a screen did and why something failed; nil
	// discards. A screen never prints.
	Log *slog.Logger
	// Out is where a screen asks the root for something at once (see
	// Outbox); nil drops it.
	Out *Outbox
	// Activity counts the agents' events per minute (the root fills
	// it); nil for none.
	Activity *Activity
	// Team is the hub the dashboard is attached to; nil for a local
	// dashboard (see Team).
	Team Team
	// Clock is told when the picture next changes by the clock alone
	// (an age, a countdown): the root's clock wakes then (see Clock);
	// nil asks nothing.
	Clock *Clock
}

// Say shows text in the footer as a notice: what an action did.
func (c Context) Say(text string) { c.Out.Send(StatusMsg{Text: text}) }

// Aside shows text in the footer as a notice the fleet made on its own,
// not an answer to a key: an error shown a moment ago stays.
func (c Context) Aside(text string) { c.Out.Send(StatusMsg{Text: text, Aside: true}) }

// Warn shows text in the footer as a refusal or a failure.
func (c Context) Warn(text string) { c.Out.Send(StatusMsg{Text: text, Err: true}) }

// Logger is Log, or a logger that discards when Log is nil.
func (c Context) Logger() *slog.Logger {
	if c.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return c.Log
}

// Writable reports whether actions that write to agent (cancel, reply,
// approve, deny) are allowed: not when the dashboard runs --read-only,
// nor when the agent's own config says read_only.
func (c Context) Writable(agent string) bool {
	if c.ReadOnly {
		return false
	}
	a := c.Fleet.Agent(agent)
	return a == nil || !a.Info.ReadOnly
}

// ReadOnlyWords says why nothing may be sent to agent ("" for any
// agent), naming what really makes it so: the hub's roles for an
// operator it lets only watch, else --read-only or the config. It is
// the one text every refused write says (keys, the command line).
func (c Context) ReadOnlyWords(agent string) string {
	if c.ReadOnly && c.Team != nil && !c.teamWrites(agent) {
		return "operator " + c.Team.Operator() + " may only watch on the hub at " + c.Team.URL() + " (the hub's roles): nothing is sent"
	}
	if c.ReadOnly {
		return "read-only: nothing is sent to agents (--read-only, or read_only = true in the config)"
	}
	return "agent " + agent + " is read-only in the config (read_only = true): nothing is sent to it"
}

// teamWrites reports whether the hub lets the operator write (answer,
// approve or cancel) on agent, or on any agent of the fleet for "".
func (c Context) teamWrites(agent string) bool {
	names := []string{agent}
	if agent == "" {
		names = names[:0]
		for _, a := range c.Fleet.Agents() {
			names = append(names, a.Name)
		}
	}
	for _, n := range names {
		for _, r := range []string{RoleAnswer, RoleApprove, RoleCancel} {
			if c.Team.May(n, r) {
				return true
			}
		}
	}
	return false
}

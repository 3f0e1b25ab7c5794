package inbox

import (
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/approvals"
	"a2atop/model"
)

// decidedWords says, when the prompt of it has a decision that no new
// one may follow, who decided what and when; "" when an answer may go.
// A decision whose outcome is open (being sent, or unknown) may have
// reached the agent: nothing new goes over it, anywhere. On a team's hub
// an accepted one is the prompt's decision too: the hub takes one per
// prompt. (A local dashboard may send a second decision over an accepted
// one, after confirming again.)
func (m *Inbox) decidedWords(it *approvals.Item) string {
	if it == nil || it.Prior == nil {
		return ""
	}
	p := it.Prior
	switch {
	case p.Result.Open() && p.Approver == m.svc.Approver():
		return fmt.Sprintf("your %s of %s is %s: nothing new is sent over it until it is settled — reconcile it in the journal (4)",
			p.Kind, p.DecidedAt.Local().Format("15:04:05"), p.Result)
	case p.Result.Open():
		return approvals.WinnerOf(*p).Words() + "; nothing new is sent over it until it is settled"
	case p.Result == approvals.ResultAccepted && m.ctx.Team != nil:
		return approvals.WinnerOf(*p).Words() + "; the hub takes one decision per prompt: nothing more is sent"
	}
	return ""
}

// readOnlyKey says in the footer why a key that writes does nothing in a
// read-only dashboard (--read-only, the config, or an operator the hub
// lets only watch): such keys are disabled and hidden from the help,
// and one pressed anyway said nothing. It reports whether msg was one
// of writes (matched as if enabled).
func readOnlyKey(readOnly bool, msg tea.KeyMsg, writes []key.Binding, agent string, warn func(string), words func(string) string) bool {
	if !readOnly {
		return false
	}
	for i := range writes {
		writes[i].SetEnabled(true)
	}
	if !key.Matches(msg, writes...) {
		return false
	}
	warn(words(agent))
	return true
}

// reachWords warns, before a decision on agent is confirmed, that the
// agent cannot be reached now (its watcher's last attempt failed): the
// decision would be journaled and then, the check before sending
// failing, not sent. "" while the agent answers or is not yet heard of.
func reachWords(f *model.Fleet, agent string, kind approvals.Kind) string {
	a := f.Agent(agent)
	if a == nil {
		return ""
	}
	switch a.Health.State {
	case model.HealthUnreachable, model.HealthBackoff, model.HealthUnauthorized:
	default:
		return ""
	}
	why := a.Health.Err
	if why == "" {
		why = a.Health.State.String()
	}
	return fmt.Sprintf("%s cannot be reached now (%s): y records the %s and asks the agent first; if it still cannot be reached, nothing is sent",
		agent, why, kind)
}

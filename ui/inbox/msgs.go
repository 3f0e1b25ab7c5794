package inbox

import (
	"context"

	tea "github.com/charmbracelet/bubbletea"

	"a2atop/approvals"
	"a2atop/model"
)

// origin is the view that asked for a send or a reconcile: the inbox and
// the journal both get every answer (to bring their lists up to date),
// and the one that asked says what it achieved.
type origin uint8

const (
	fromInbox origin = iota + 1
	fromJournal
	fromCompose
)

// SentMsg reports what a send achieved. It carries the decision's
// messageId and task so a late answer is routed to the right item.
type SentMsg struct {
	Key     model.TaskKey
	Outcome approvals.Outcome
	from    origin
}

// ReconciledMsg reports a reconcile of the journal's open decisions.
type ReconciledMsg struct {
	Outcomes []approvals.Outcome
	from     origin
}

// NotedMsg reports a journal write that is not a send (an observation).
type NotedMsg struct{ Err error }

// sendCmd sends d once confirmed: its time is the moment the Cmd runs,
// right after the confirming key (for an answer for many, each task's
// own send), not the moment the dialog opened.
func sendCmd(svc *approvals.Service, k model.TaskKey, d *approvals.Decision, from origin) tea.Cmd {
	return func() tea.Msg {
		c, err := svc.Confirmed(d)
		if err != nil {
			return SentMsg{Key: k, Outcome: approvals.Outcome{MessageID: d.MessageID, Agent: d.Agent, TaskID: d.TaskID, Kind: d.Kind,
				Result: approvals.ResultRefused, Problem: approvals.ProblemRejected, Err: err}, from: from}
		}
		return SentMsg{Key: k, Outcome: svc.Send(context.Background(), c), from: from}
	}
}

func reconcileCmd(svc *approvals.Service, from origin) tea.Cmd {
	return func() tea.Msg {
		return ReconciledMsg{Outcomes: svc.Reconcile(context.Background()), from: from}
	}
}

package inbox

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"a2atop/approvals"
	"a2atop/model"
)

// SentMsg reports what a send achieved. It carries the decision's
// messageId and task so a late answer is routed to the right item.
type SentMsg struct {
	Key     model.TaskKey
	Outcome approvals.Outcome
}

// ReconciledMsg reports a reconcile of the journal's open decisions.
type ReconciledMsg struct{ Outcomes []approvals.Outcome }

// NotedMsg reports a journal write that is not a send (an observation).
type NotedMsg struct{ Err error }

// armedMsg wakes the view when a confirmation arms.
type armedMsg struct{ At time.Time }

func sendCmd(svc *approvals.Service, k model.TaskKey, d *approvals.Decision) tea.Cmd {
	return func() tea.Msg {
		return SentMsg{Key: k, Outcome: svc.Send(context.Background(), d)}
	}
}

func reconcileCmd(svc *approvals.Service) tea.Cmd {
	return func() tea.Msg {
		return ReconciledMsg{Outcomes: svc.Reconcile(context.Background())}
	}
}

func armCmd(d time.Duration) tea.Cmd {
	if d <= 0 {
		return nil
	}
	return tea.Tick(d, func(t time.Time) tea.Msg { return armedMsg{At: t} })
}

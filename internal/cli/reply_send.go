package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/a2aclient"
	"a2atop/approvals"
	"a2atop/internal/config"
	"a2atop/internal/sanitize"
	"a2atop/model"
)

// sendReply fetches the task, prepares the decision with package
// approvals (validation, the agent's template, a new messageId, the
// journal's memory of earlier decisions), sends it once and prints the
// outcome. Exit: 0 accepted, 1 refused/unknown/unreachable, 2 bad input.
func sendReply(ctx context.Context, cfg *config.Config, agent string, id a2a.TaskID, kind approvals.Kind,
	f *replyFlags, log *slog.Logger, st Streams) int {
	mgr, err := newManager(cfg, log)
	if err != nil {
		fmt.Fprintf(st.Err, "a2atop reply: config: %v\n", err)
		return exitUsage
	}
	svc, err := approvals.Open(approvals.Options{JournalPath: cfg.JournalPath, Sender: mgr, Approver: cfg.Approver,
		Templates: cfg.Templates(), Logger: log, SendTimeout: f.timeout})
	if err != nil {
		fmt.Fprintf(st.Err, "a2atop reply: approvals journal %s: %v\n", cfg.JournalPath, err)
		return exitFailed
	}
	defer svc.Close()
	// Decisions a crash or a timeout left open are settled first (GetTask
	// and our messageId in the history; nothing is sent), so that a
	// decision whose outcome is unknown is not followed by a second one.
	recCtx, cancel := context.WithTimeout(ctx, f.timeout)
	for _, o := range svc.Reconcile(recCtx) {
		log.Info("reconciled an open decision", logKeyAgent, o.Agent, logKeyResult, string(o.Result))
	}
	cancel()

	getCtx, cancel := context.WithTimeout(ctx, f.timeout)
	task, err := mgr.Get(getCtx, agent, id, 0, false)
	cancel()
	if err != nil {
		fmt.Fprintf(st.Err, "a2atop reply: %s · %s: %s\n", agent, id, sanitize.Line(a2aclient.Describe(err), 500))
		return exitFailed
	}
	fleet := model.NewFleet(model.Options{ChainKeys: cfg.ChainKeys()})
	fleet.AddAgent(agent, "")
	fleet.Apply([]model.Event{{Kind: model.EventTask, Agent: agent, Source: model.SourcePoll, At: time.Now(), Task: task}})
	t := fleet.Task(model.TaskKey{Agent: agent, ID: id})
	if t == nil {
		fmt.Fprintf(st.Err, "a2atop reply: %s answered GetTask for %s with task %s\n", agent, id, sanitize.Line(string(task.ID), 80))
		return exitFailed
	}
	d, err := svc.Prepare(svc.ItemFor(t), approvals.Input{Kind: kind, Text: f.text, JSON: f.data, Reason: f.reason, Again: f.again})
	if err != nil {
		fmt.Fprintf(st.Err, "a2atop reply: %s · %s: %v\n", agent, id, err)
		if errors.Is(err, approvals.ErrInvalidJSON) || errors.Is(err, approvals.ErrEmptyReply) ||
			errors.Is(err, approvals.ErrReasonRequired) {
			return exitUsage
		}
		return exitFailed
	}
	out := svc.Send(ctx, d)
	fmt.Fprintf(st.Out, "%s → %s · %s: %s\n", d.Kind, agent, id, sanitize.Line(out.Words(), 300))
	if next := out.Next(); next != "" {
		fmt.Fprintf(st.Out, "next: %s\n", sanitize.Line(next, 300))
	}
	fmt.Fprintf(st.Out, "messageId %s (journal %s)\n", d.MessageID, cfg.JournalPath)
	if out.Result != approvals.ResultAccepted {
		if out.Err != nil {
			fmt.Fprintf(st.Err, "a2atop reply: %s\n", sanitize.Line(a2aclient.Describe(out.Err), 500))
		}
		return exitFailed
	}
	return exitOK
}

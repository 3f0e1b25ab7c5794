package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/a2aclient"
	"a2atop/approvals"
	"a2atop/internal/config"
	"a2atop/internal/sanitize"
	"a2atop/model"
)

// replyFlags are the flags of `a2atop reply` beyond the shared --config
// and --timeout.
type replyFlags struct {
	text, data, reason   string
	approve, deny, again bool
}

// define defines reply's flags on o, the shared ones included.
func (f *replyFlags) define(o *options) {
	fs := o.fs
	o.configFlag()
	o.timeoutFlag(30*time.Second, "how long to wait for the agent")
	fs.StringVar(&f.text, "text", "", "answer a question (INPUT_REQUIRED) with this text")
	fs.StringVar(&f.data, "data", "", "answer with this JSON as a data part (alone or with --text)")
	fs.BoolVar(&f.approve, "approve", false, "approve a task waiting for authorization (AUTH_REQUIRED)")
	fs.BoolVar(&f.deny, "deny", false, "deny a task waiting for authorization; needs --reason")
	fs.StringVar(&f.reason, "reason", "", "why (required with --deny, optional with --approve)")
	fs.BoolVar(&f.again, "again", false, "send even though the journal already holds a decision for this prompt")
}

// kind checks that exactly one action was asked for and names it.
func (f *replyFlags) kind() (approvals.Kind, error) {
	n, k := 0, approvals.Kind("")
	if f.text != "" || f.data != "" {
		n, k = n+1, approvals.KindReply
	}
	if f.approve {
		n, k = n+1, approvals.KindApprove
	}
	if f.deny {
		n, k = n+1, approvals.KindDeny
	}
	if n != 1 {
		return "", errors.New("say what to send: --text and/or --data, or --approve, or --deny --reason")
	}
	return k, nil
}

// runReply implements `a2atop reply AGENT TASK (--text T | --data J |
// --approve | --deny --reason R)`: the same decision the inbox sends,
// journaled first and sent once, for scripts. AGENT is a configured agent
// name or an agent base URL.
func runReply(ctx context.Context, args []string, st Streams) int {
	o := newOptions("reply", st)
	var f replyFlags
	f.define(o)
	pos, err := o.parse(args)
	if err != nil {
		return flagStatus(err)
	}
	kind, err := f.kind()
	if err == nil && len(pos) != 2 {
		err = errors.New("usage: a2atop reply AGENT TASK (--text T | --data JSON | --approve | --deny --reason R)")
	}
	if err != nil {
		return o.failf(exitUsage, "%v", err)
	}
	agentArg, taskID := pos[0], a2a.TaskID(pos[1])
	var urls []string
	if strings.Contains(agentArg, "://") {
		urls = []string{agentArg}
	}
	cfg, code := o.load(urls)
	if cfg == nil {
		return code
	}
	agent, ok := findAgent(cfg, agentArg)
	if !ok {
		return o.failf(exitUsage, "no agent %q; configured: %s", agentArg, agentList(cfg))
	}
	if cfg.ReadOnly || agent.ReadOnly {
		fmt.Fprintf(st.Err, "a2atop reply: %v\n", approvals.ErrReadOnly)
		return exitUsage
	}
	s := o.open(cfg)
	defer s.Close()
	return sendReply(ctx, s, agent.Name, taskID, kind, &f)
}

// findAgent finds a configured agent by name, or by URL for an agent
// given as a URL argument.
func findAgent(cfg *config.Config, arg string) (config.Agent, bool) {
	for _, a := range cfg.Agents {
		if a.Name == arg || strings.TrimRight(a.URL, "/") == strings.TrimRight(arg, "/") {
			return a, true
		}
	}
	return config.Agent{}, false
}

// agentList names the configured agents, "none" when there are none.
func agentList(cfg *config.Config) string {
	if len(cfg.Agents) == 0 {
		return "none"
	}
	return strings.Join(cfg.AgentNames(), ", ")
}

// sendReply fetches the task, prepares the decision with package
// approvals (validation, the agent's template, a new messageId, the
// journal's memory of earlier decisions), sends it once and prints the
// outcome. Exit: 0 accepted, 1 refused/unknown/unreachable, 2 bad input.
func sendReply(ctx context.Context, s *session, agent string, id a2a.TaskID, kind approvals.Kind, f *replyFlags) int {
	cfg, log, st, timeout := s.cfg, s.log, s.st, s.timeout
	mgr, code := s.manager()
	if mgr == nil {
		return code
	}
	svc, err := approvals.Open(approvals.Options{JournalPath: cfg.JournalPath, Sender: mgr, Approver: cfg.Approver, Agents: journalAgents(cfg),
		Templates: cfg.Templates(), Logger: log, SendTimeout: timeout})
	if err != nil {
		return s.failf(exitFailed, "approvals journal %s: %v", cfg.JournalPath, err)
	}
	defer svc.Close()
	// Decisions a crash or a timeout left open are settled first (GetTask
	// and our messageId in the history; nothing is sent), so that a
	// decision whose outcome is unknown is not followed by a second one.
	recCtx, cancel := context.WithTimeout(ctx, timeout)
	for _, o := range svc.Reconcile(recCtx) {
		log.Info("reconciled an open decision", logKeyAgent, o.Agent, logKeyResult, string(o.Result))
	}
	cancel()

	t, code := s.fetchTask(ctx, mgr, agent, id)
	if t == nil {
		return code
	}
	d, err := svc.Prepare(svc.ItemFor(t), approvals.Input{Kind: kind, Text: f.text, JSON: f.data, Reason: f.reason, Again: f.again})
	if err != nil {
		code := exitFailed
		if errors.Is(err, approvals.ErrInvalidJSON) || errors.Is(err, approvals.ErrEmptyReply) ||
			errors.Is(err, approvals.ErrReasonRequired) {
			code = exitUsage
		}
		return s.failf(code, "%s · %s: %v", agent, id, err)
	}
	out := svc.Send(ctx, d)
	fmt.Fprintf(st.Out, "%s → %s · %s: %s\n", d.Kind, agent, id, sanitize.Line(out.Words(), 300))
	if next := out.Next(); next != "" {
		fmt.Fprintf(st.Out, "next: %s\n", sanitize.Line(next, 300))
	}
	fmt.Fprintf(st.Out, "messageId %s (journal %s)\n", d.MessageID, cfg.JournalPath)
	if out.Result != approvals.ResultAccepted {
		if out.Err != nil {
			return s.failf(exitFailed, "%s", sanitize.Line(a2aclient.Describe(out.Err), 500))
		}
		return exitFailed
	}
	return exitOK
}

// fetchTask gets the task from the agent (waiting at most --timeout) and
// returns it as the fleet sees it, which is what approvals prepares a
// decision for. A nil task comes with the exit status to return.
func (s *session) fetchTask(ctx context.Context, mgr *a2aclient.Manager, agent string, id a2a.TaskID) (*model.Task, int) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	task, err := mgr.Get(ctx, agent, id, 0, false)
	cancel()
	if err != nil {
		return nil, s.failf(exitFailed, "%s · %s: %s", agent, id, sanitize.Line(a2aclient.Describe(err), 500))
	}
	fleet := model.NewFleet(model.Options{ChainKeys: s.cfg.ChainKeys()})
	fleet.AddAgent(agent, "")
	fleet.Apply([]model.Event{{Kind: model.EventTask, Agent: agent, Source: model.SourcePoll, At: time.Now(), Task: task}})
	t := fleet.Task(model.TaskKey{Agent: agent, ID: id})
	if t == nil {
		return nil, s.failf(exitFailed, "%s answered GetTask for %s with task %s", agent, id, sanitize.Line(string(task.ID), 80))
	}
	return t, exitOK
}

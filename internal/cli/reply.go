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
	o.hubFlag()
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
	agentArg, taskArg := pos[0], pos[1]
	if taskArg == "" {
		return o.failf(exitUsage, "TASK is empty: give the task's id, or its start")
	}
	if err := model.CheckTaskID(taskArg); err != nil {
		return o.failf(exitUsage, "TASK: %v; a2atop sends no such id to an agent", err)
	}
	if o.hub != "" {
		return replyViaHub(ctx, o, agentArg, taskArg, kind, &f)
	}
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
		return o.failf(exitUsage, "%s", noSuchAgent(cfg, agentArg, "reply http://host:port TASK ..."))
	}
	if cfg.ReadOnly || agent.ReadOnly {
		// The command's way of hiding a key: nothing is journaled for an
		// agent nothing may be sent to (the Manager would refuse the send).
		return o.failf(exitUsage, "agent %q is read-only (--read-only, or read_only = true in the config): reply sends nothing to it", agent.Name)
	}
	s := o.open(cfg)
	defer s.Close()
	return sendReply(ctx, s, agent, taskArg, kind, &f)
}

// findAgent finds a configured agent by name or a unique start of one
// (model.ResolveName, as the dashboard's :agent and :new read it), or
// by URL for an agent given as a URL argument: its base URL, or its
// card's URL, which the configuration splits into the base URL and
// card_path.
func findAgent(cfg *config.Config, arg string) (config.Agent, bool) {
	arg = strings.TrimRight(arg, "/")
	for _, a := range cfg.Agents {
		base := strings.TrimRight(a.URL, "/")
		if a.Name == arg || base == arg || a.CardPath != "" && base+a.CardPath == arg {
			return a, true
		}
	}
	if found := model.ResolveName(cfg.AgentNames(), arg); len(found) == 1 {
		for _, a := range cfg.Agents {
			if a.Name == found[0] {
				return a, true
			}
		}
	}
	return config.Agent{}, false
}

// noSuchAgent says that arg names no agent, which file was read (or
// where one was looked for) and how to name an agent without one: usage
// is the command line that does ("reply http://host:port TASK ...").
func noSuchAgent(cfg *config.Config, arg, usage string) string {
	byURL := "name the agent by its base URL (a2atop " + usage + ")"
	if cfg.Path != "" {
		names := "none"
		if len(cfg.Agents) > 0 {
			names = strings.Join(cfg.AgentNames(), ", ")
		}
		return fmt.Sprintf("no agent %q in %s (configured: %s); use one of those names, or %s", arg, cfg.Path, names, byURL)
	}
	where := "and no user config directory to look in"
	if p, _ := config.Locate(""); p != "" {
		where = "and " + p + " does not exist"
	}
	return fmt.Sprintf("no agent %q: no config file was read (no --config, $%s not set, %s); %s, or configure it "+
		"in an [[agent]] table there (see config.example.toml)", arg, config.EnvConfig, where, byURL)
}

// sendReply fetches the task, prepares the decision with package
// approvals (validation, the agent's template, a new messageId, the
// journal's memory of earlier decisions), sends it once and prints the
// outcome. Exit: 0 accepted, 1 refused/unknown/unreachable, 2 bad input.
func sendReply(ctx context.Context, s *session, agent config.Agent, taskArg string, kind approvals.Kind, f *replyFlags) int {
	cfg, log, timeout := s.cfg, s.log, s.timeout
	if err := sharedElsewhere(cfg); err != nil {
		return s.failf(exitUsage, "config: %v", err)
	}
	mgr, code := s.manager()
	if mgr == nil {
		return code
	}
	svc, err := approvals.Open(approvals.Options{JournalPath: cfg.JournalPath, Sender: mgr, Approver: cfg.Approver, Agents: journalAgents(cfg),
		Templates: cfg.Templates(), Policies: cfg.Policies(), Groups: cfg.Groups(), Logger: log, SendTimeout: timeout,
		Segment: approvals.SegmentPolicy(cfg.JournalSegment)})
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

	t, code := s.fetchTask(ctx, mgr, agent, taskArg)
	if t == nil {
		return code
	}
	d, err := svc.Prepare(svc.ItemFor(t), approvals.Input{Kind: kind, Text: f.text, JSON: f.data, Reason: f.reason, Again: f.again})
	if err != nil {
		code := exitFailed
		if errors.Is(err, approvals.ErrInvalidJSON) || errors.Is(err, approvals.ErrEmptyReply) ||
			errors.Is(err, approvals.ErrReasonRequired) || errors.Is(err, approvals.ErrApprovalReason) {
			code = exitUsage
		}
		return s.failf(code, "%s · %s: %v", agent.Name, t.Key.ID, err)
	}
	return s.reportReply(d, svc.Send(ctx, d), cfg.JournalPath)
}

// reportReply prints what a send achieved and returns the exit status:
// 0 accepted, 1 otherwise.
func (s *session) reportReply(d *approvals.Decision, out approvals.Outcome, journal string) int {
	st := s.st
	fmt.Fprintf(st.Out, "%s → %s · %s: %s\n", d.Kind, sanitize.Line(d.Agent, maxNameRunes), sanitize.Line(string(d.TaskID), 200), sanitize.Line(out.Words(), 300))
	reportVotes(st, out)
	if next := out.Next(); next != "" {
		fmt.Fprintf(st.Out, "next: %s\n", sanitize.Line(next, 300))
	}
	fmt.Fprintf(st.Out, "messageId %s (journal %s)\n", d.MessageID, journal)
	if out.Result == approvals.ResultVoted { // recorded; the policy sends when complete
		return exitOK
	}
	if out.Result != approvals.ResultAccepted {
		if out.Err != nil {
			return s.failf(exitFailed, "%s", a2aclient.Describe(out.Err))
		}
		return exitFailed
	}
	return exitOK
}

// fetchTask gets the task arg names from the agent (waiting at most
// --timeout for each call) and returns it as the fleet sees it, which is
// what approvals prepares a decision for. arg is the task's id, or its
// start, or the short id the screens show (resolveTaskID). A nil task
// comes with the exit status to return.
func (s *session) fetchTask(ctx context.Context, mgr *a2aclient.Manager, agent config.Agent, arg string) (*model.Task, int) {
	id := a2a.TaskID(arg)
	task, err := s.getTask(ctx, mgr, agent.Name, id)
	if errors.Is(err, a2a.ErrTaskNotFound) {
		if id, err = s.resolveTaskID(ctx, agent, arg); err == nil {
			task, err = s.getTask(ctx, mgr, agent.Name, id)
		}
	}
	var ref *taskRefError
	switch {
	case errors.As(err, &ref):
		return nil, s.failf(ref.code, "%s · %s: %s", agent.Name, arg, ref.msg)
	case err != nil:
		return nil, s.failf(exitFailed, "%s · %s: %s", agent.Name, arg, a2aclient.Describe(err))
	}
	fleet := model.NewFleet(model.Options{ChainKeys: s.cfg.ChainKeys()})
	fleet.AddAgent(agent.Name, "")
	fleet.Apply([]model.Event{{Kind: model.EventTask, Agent: agent.Name, Source: model.SourcePoll, At: time.Now(), Task: task}})
	t := fleet.Task(model.TaskKey{Agent: agent.Name, ID: id})
	if t == nil {
		return nil, s.failf(exitFailed, "%s answered GetTask for %s with task %s", agent.Name, id, task.ID)
	}
	return t, exitOK
}

// getTask is one GetTask, bounded by --timeout.
func (s *session) getTask(ctx context.Context, mgr *a2aclient.Manager, agent string, id a2a.TaskID) (*a2a.Task, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	return mgr.Get(ctx, agent, id, 0, false)
}

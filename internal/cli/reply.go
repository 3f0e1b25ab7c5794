package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/approvals"
	"a2atop/internal/config"
)

// replyFlags are the flags of `a2atop reply`.
type replyFlags struct {
	cfgPath              string
	text, data, reason   string
	approve, deny, again bool
	timeout              time.Duration
}

func (f *replyFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&f.cfgPath, "config", "", "config `FILE` (default $A2ATOP_CONFIG, then ~/.config/a2atop/config.toml)")
	fs.StringVar(&f.text, "text", "", "answer a question (INPUT_REQUIRED) with this text")
	fs.StringVar(&f.data, "data", "", "answer with this JSON as a data part (alone or with --text)")
	fs.BoolVar(&f.approve, "approve", false, "approve a task waiting for authorization (AUTH_REQUIRED)")
	fs.BoolVar(&f.deny, "deny", false, "deny a task waiting for authorization; needs --reason")
	fs.StringVar(&f.reason, "reason", "", "why (required with --deny, optional with --approve)")
	fs.BoolVar(&f.again, "again", false, "send even though the journal already holds a decision for this prompt")
	fs.DurationVar(&f.timeout, "timeout", 30*time.Second, "how long to wait for the agent")
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
	fs := newFlags("reply", st)
	var f replyFlags
	f.define(fs)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return flagStatus(err)
	}
	kind, err := f.kind()
	if err == nil && len(pos) != 2 {
		err = errors.New("usage: a2atop reply AGENT TASK (--text T | --data JSON | --approve | --deny --reason R)")
	}
	if err != nil {
		fmt.Fprintf(st.Err, "a2atop reply: %v\n", err)
		return exitUsage
	}
	agentArg, taskID := pos[0], a2a.TaskID(pos[1])
	var urls []string
	if strings.Contains(agentArg, "://") {
		urls = []string{agentArg}
	}
	cfg, code := loadConfig(f.cfgPath, urls, st)
	if cfg == nil {
		return code
	}
	agent, ok := findAgent(cfg, agentArg)
	if !ok {
		fmt.Fprintf(st.Err, "a2atop reply: no agent %q; configured: %s\n", agentArg, strings.Join(cfg.AgentNames(), ", "))
		return exitUsage
	}
	if cfg.ReadOnly || agent.ReadOnly {
		fmt.Fprintf(st.Err, "a2atop reply: %v\n", approvals.ErrReadOnly)
		return exitUsage
	}
	log, closeLog := openLog(cfg.LogPath, "reply", st)
	defer closeLog()
	return sendReply(ctx, cfg, agent.Name, taskID, kind, &f, log, st)
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

package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// Exit statuses, documented in README.md and `a2atop help`.
const (
	exitOK     = 0 // success; for check and tasks: every agent answered
	exitFailed = 1 // an agent could not be reached or answered with an error; a run failed
	exitUsage  = 2 // the command line or the configuration is wrong
)

// Streams are where a command reads and writes; tests pass buffers. A nil
// In means the terminal (os.Stdin) for the dashboard.
type Streams struct {
	In       io.Reader
	Out, Err io.Writer
}

const usageText = `a2atop — a terminal dashboard for A2A agents

Usage:
  a2atop [--config FILE] [--read-only] [URL...]
        open the dashboard on the configured agents plus the agent base URLs given
  a2atop demo [--agents-only] [--pace D] [--base-port N] [--read-only]
        start five demo agents on 127.0.0.1 and open the dashboard on them;
        --agents-only prints "NAME URL" per agent and serves until Ctrl+C;
        --base-port puts them on ports N..N+4, so they keep their URLs when restarted
  a2atop check [--config FILE] [--timeout D] [URL...]
        fetch every agent's card and try ListTasks; print a table
  a2atop tasks --json [--config FILE] [--timeout D] [URL...]
        sweep every agent once and print agents and tasks as one JSON document
  a2atop watch --jsonl [--config FILE] [URL...]
        print every event as it arrives, one JSON object per line, until Ctrl+C
  a2atop reply [--config FILE] AGENT TASK (--text T | --data JSON | --approve | --deny --reason R)
        answer a waiting task as the inbox would: journaled first, sent once;
        AGENT is a configured name or the agent's base URL
  a2atop login [--config FILE] AGENT
        sign in to an agent with the OAuth 2.0 device flow: open the page, enter the code
  a2atop version
        print the version
  a2atop help
        print this text

The config file is --config FILE, else $A2ATOP_CONFIG, else
~/.config/a2atop/config.toml (see config.example.toml). Logs go to the
log_path file (default ~/.local/state/a2atop/a2atop.log), never to the terminal.

Exit status:
  0  success (check, tasks: every agent answered; reply: the agent took it)
  1  an agent could not be reached or answered with an error, or refused the
     reply, or the run failed
  2  the command line or the configuration is wrong (the message names the
     file, line and key)
`

// Main runs the a2atop command line args (without the program name) and
// returns the exit status. It first points the process-wide loggers at the
// log sink (see captureProcessLogs), so it is called once, from main.
func Main(ctx context.Context, args []string, st Streams) int {
	captureProcessLogs()
	return run(ctx, args, st)
}

// run dispatches to a command and returns the exit status.
func run(ctx context.Context, args []string, st Streams) int {
	cmd, rest := "", args
	if len(args) > 0 {
		cmd, rest = args[0], args[1:]
	}
	switch cmd {
	case "help", "-h", "-help", "--help":
		fmt.Fprint(st.Out, usageText)
		return exitOK
	case "version", "--version":
		return runVersion(st)
	case "demo":
		return runDemo(ctx, rest, st)
	case "check":
		return runCheck(ctx, rest, st)
	case "tasks":
		return runTasks(ctx, rest, st)
	case "watch":
		return runWatch(ctx, rest, st)
	case "reply":
		return runReply(ctx, rest, st)
	case "login":
		return runLogin(ctx, rest, st)
	}
	if cmd != "" && !strings.HasPrefix(cmd, "-") && !strings.Contains(cmd, "://") {
		fmt.Fprintf(st.Err, "a2atop: unknown command %q; agent URLs start with http:// or https:// (a2atop help lists the commands)\n", cmd)
		return exitUsage
	}
	return runDashboard(ctx, args, st)
}

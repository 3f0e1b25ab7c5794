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
		return runHelp(ctx, rest, st)
	case "version", "--version":
		return runVersion(rest, st)
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
	case "journal":
		return runJournal(ctx, rest, st)
	case "login":
		return runLogin(ctx, rest, st)
	case "serve":
		return runServe(ctx, rest, st)
	}
	if cmd != "" && !strings.HasPrefix(cmd, "-") && !strings.Contains(cmd, "://") {
		fmt.Fprintf(st.Err, "a2atop: unknown command %q; agent URLs start with http:// or https:// (a2atop help lists the commands)\n", cmd)
		return exitUsage
	}
	return runDashboard(ctx, args, st)
}

// runHelp implements `a2atop help [COMMAND]`: the whole usage text, or
// the usage of one command (what `a2atop COMMAND -h` prints).
func runHelp(ctx context.Context, args []string, st Streams) int {
	if len(args) == 0 {
		fmt.Fprint(st.Out, usageText())
		return exitOK
	}
	if d, ok := docOf(args[0]); !ok || d.name == "" || d.name == "help" {
		fmt.Fprintf(st.Err, "a2atop help: unknown command %q (a2atop help lists the commands)\n", args[0])
		return exitUsage
	}
	return run(ctx, []string{args[0], "-h"}, st)
}

// Command a2atop is a terminal dashboard for A2A agents: it watches many
// agents at once, sorts their tasks into active, interrupted and terminal
// panes, and gives a person one inbox to answer the tasks that wait for
// input or approval. See README.md.
//
// main only sets up the signals that end a run (Ctrl+C, SIGTERM, and
// SIGHUP when the terminal closes, so the demo still removes its temporary
// journal) and hands the command line to package a2atop/internal/cli,
// which holds every command.
package main

import (
	"context"
	"os"

	"a2atop/internal/cli"
)

func main() {
	ctx, stop := cli.SignalContext(context.Background())
	code := cli.Main(ctx, os.Args[1:], cli.Streams{Out: os.Stdout, Err: os.Stderr})
	stop()
	os.Exit(code)
}

// Command a2atop is a terminal dashboard for A2A agents: it watches many
// agents at once, sorts their tasks into active, interrupted and terminal
// panes, and gives a person one inbox to answer the tasks that wait for
// input or approval. See README.md.
//
// main.go only wires: it parses the command line and hands over to one
// cmd_*.go file per command. Package main is the only package that knows
// every other one.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	captureProcessLogs()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], streams{Out: os.Stdout, Err: os.Stderr})
	stop()
	os.Exit(code)
}

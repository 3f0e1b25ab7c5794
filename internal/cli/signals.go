package cli

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// stopSignals are the signals that end a run: Ctrl+C outside the
// dashboard (SIGINT), kill and service managers (SIGTERM), and a closed
// terminal or tmux pane (SIGHUP).
func stopSignals() []os.Signal { return []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP} }

// SignalContext is the context a command runs in, as main gives it to
// Main: it ends at the first SIGINT, SIGTERM or SIGHUP, and the command
// then restores the terminal, releases what it holds and returns. Once
// it has ended, the signals are let go: a second one ends the process
// at once, the way the system ends any process, should the first one's
// shutdown ever stall. stop releases the signals.
//
// It is the one signal handler of the process: the dashboard runs
// Bubble Tea without its own (see runUI).
func SignalContext(parent context.Context) (ctx context.Context, stop func()) {
	ctx, release := signal.NotifyContext(parent, stopSignals()...)
	go func() {
		<-ctx.Done()
		release()
	}()
	return ctx, release
}

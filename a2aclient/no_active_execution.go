package a2aclient

import (
	"errors"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
)

// A Go SDK agent (github.com/a2aproject/a2a-go/v2 v2.4.0, its a2asrv
// handler) answers SubscribeToTask on a task it holds but runs no
// execution for (INPUT_REQUIRED, AUTH_REQUIRED, or orphaned) with -32001
// TaskNotFound "no active execution": its task executor keeps only
// running executions and never reads the store (a2a-go#439, open). The
// spec and the JS SDK answer a snapshot and keep the stream open. A
// watcher hears it as any failed subscribe: it asks GetTask, and a task
// GetTask finds is not gone; normalRefusal keeps such an answer off the
// agent's row, and a task refused with nothing received is left to sweeps
// until its state or timestamp changes (stream.go).
// TestSDKServerRefusesSubscribeWithoutExecution pins the SDK's side: the
// day it fails, agents built on newer versions stream such tasks; keep
// this as long as agents on older ones are about.

// normalRefusal tells a subscribe refusal that is no fault from one to
// show on the agent's row, once GetTask has told what the task is now:
// Go servers answer -32001 (TaskNotFound) "no active execution" for a task
// they hold but run nothing for (INPUT_REQUIRED, AUTH_REQUIRED, orphaned),
// and spec §3.1.6 has UnsupportedOperation for a task already terminal.
func normalRefusal(serr error, now *a2a.Task) bool {
	return errors.Is(serr, a2a.ErrTaskNotFound) ||
		errors.Is(serr, a2a.ErrUnsupportedOperation) && model.ClassOf(now.Status.State) == model.ClassTerminal
}

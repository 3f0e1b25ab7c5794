package demo

import (
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

func findArtifact(task *a2a.Task, id a2a.ArtifactID) *a2a.Artifact {
	for _, a := range task.Artifacts {
		if a.ID == id {
			return a
		}
	}
	return nil
}

func TestTestRunnerCompletesAt9f3c2e1WithOneFailure(t *testing.T) {
	f := startFleet(t, Options{NoPlanner: true})
	task := send(t, sdkClient(t, f, TestRunner), "run the unit tests at 9f3c2e1", false)
	if task.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("state = %s, want COMPLETED", task.Status.State)
	}
	if got := statusText(task); got != "1 failed, 11 passed" {
		t.Errorf("status text = %q, want %q", got, "1 failed, 11 passed")
	}
	a := findArtifact(task, "summary")
	if a == nil || a.Name != "summary.json" || len(a.Parts) != 1 {
		t.Fatalf("summary artifact = %+v, want artifactId summary named summary.json with one part", a)
	}
	data, ok := a.Parts[0].Data().(map[string]any)
	if !ok {
		t.Fatalf("summary part is %T, want a data part", a.Parts[0].Content)
	}
	if data["passed"] != float64(11) || data["failed"] != float64(1) {
		t.Errorf("summary = %v, want passed 11, failed 1", data)
	}
}

func TestTestRunnerPassesAGoodCommit(t *testing.T) {
	f := startFleet(t, Options{NoPlanner: true})
	task := send(t, sdkClient(t, f, TestRunner), "run the unit tests at a41c7d0", false)
	data, _ := findArtifact(task, "summary").Parts[0].Data().(map[string]any)
	if task.Status.State != a2a.TaskStateCompleted || data["failed"] != float64(0) || data["passed"] != float64(12) {
		t.Fatalf("state %s, summary %v; want COMPLETED with 12 passed, 0 failed", task.Status.State, data)
	}
}

func TestTestRunnerFailsForMissingCommit(t *testing.T) {
	f := startFleet(t, Options{NoPlanner: true})
	task := send(t, sdkClient(t, f, TestRunner), "run the unit tests at deadbee", false)
	if task.Status.State != a2a.TaskStateFailed {
		t.Fatalf("state = %s, want FAILED", task.Status.State)
	}
	if got := statusText(task); got != "commit deadbee does not exist" {
		t.Errorf("status text = %q", got)
	}
}

func TestLongSuiteCanceledKeepsItsLogChunks(t *testing.T) {
	f := startFleet(t, Options{NoPlanner: true})
	c := sdkClient(t, f, TestRunner)
	ctx := testCtx(t)
	req := &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("run the full suite at 9f3c2e1"))}
	var id a2a.TaskID
	chunks := 0
	for ev, err := range c.SendStreamingMessage(ctx, req) {
		if err != nil {
			t.Fatalf("stream: %v", err)
		}
		switch ev := ev.(type) {
		case *a2a.Task:
			id = ev.ID
		case *a2a.TaskArtifactUpdateEvent:
			if ev.Artifact.ID != "log" || ev.Append != (chunks > 0) || ev.LastChunk {
				t.Fatalf("chunk %d = %+v, want log chunk with append=%v and not last", chunks, ev, chunks > 0)
			}
			chunks++
		}
		if chunks == 2 {
			break
		}
	}
	if chunks != 2 {
		t.Fatalf("stream ended after %d chunks", chunks)
	}
	canceled, err := c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: id})
	if err != nil {
		t.Fatalf("CancelTask: %v", err)
	}
	if canceled.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("CancelTask returned %s, want CANCELED", canceled.Status.State)
	}
	task := waitState(t, c, id, a2a.TaskStateCanceled)
	log := findArtifact(task, "log")
	if log == nil || log.Name != "test.log" || len(log.Parts) < 2 {
		t.Fatalf("log artifact after cancel = %+v, want test.log with the chunks written", log)
	}
	if findArtifact(task, "summary") != nil {
		t.Error("a canceled run has a summary; want only the log")
	}
	again, err := c.CancelTask(ctx, &a2a.CancelTaskRequest{ID: id})
	if err != nil || again.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("second CancelTask = %v, %v; want the CANCELED task", again, err)
	}
}

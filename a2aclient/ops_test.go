package a2aclient

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/internal/sdktest"
	"a2atop/model"
)

type coded interface {
	RPCCode() int
	HTTPStatus() int
}

// Get, Reply and Cancel return classified errors on every binding.
func TestOperations(t *testing.T) {
	for _, kind := range []sdktest.Kind{sdktest.JSONRPC, sdktest.REST, sdktest.GRPC, sdktest.Legacy} {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			a := sdktest.Start(t, kind, true, nil)
			m := New([]AgentOptions{fast("a", a.URL())}, Options{})
			ctx := t.Context()

			// Get of an unknown task: TaskNotFound, code -32001, status per binding.
			_, err := m.Get(ctx, "a", "no-such-task", 0, true)
			var c coded
			if !errors.Is(err, a2a.ErrTaskNotFound) || !asInterface(err, &c) || c.RPCCode() != -32001 {
				t.Fatalf("Get(unknown) = %v, want ErrTaskNotFound with RPCCode -32001", err)
			}
			wantStatus := map[sdktest.Kind]int{sdktest.JSONRPC: 200, sdktest.Legacy: 200, sdktest.REST: 404, sdktest.GRPC: 0}[kind]
			if c.HTTPStatus() != wantStatus {
				t.Errorf("HTTPStatus = %d, want %d", c.HTTPStatus(), wantStatus)
			}
			if d := Describe(err); !strings.Contains(d, "task not found") {
				t.Errorf("Describe = %q", d)
			}

			// Reply on an input-required task, on the same taskId, returns at once.
			ask := a.Send(t, "ask")
			waitState(t, m, ask, a2a.TaskStateInputRequired)
			cur, err := m.Get(ctx, "a", ask, 10, false)
			if err != nil {
				t.Fatal(err)
			}
			msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("answer main"))
			msg.ID, msg.TaskID, msg.ContextID = "reply-1", ask, cur.ContextID
			got, err := m.Reply(ctx, "a", msg)
			for i := 0; i < 50 && err != nil && strings.Contains(Describe(err), "already in progress"); i++ {
				// The Go server reports INPUT_REQUIRED a moment before its
				// execution ends; a retry with the same messageId is safe.
				time.Sleep(20 * time.Millisecond)
				got, err = m.Reply(ctx, "a", msg)
			}
			if err != nil || got == nil || got.ID != ask {
				t.Fatalf("Reply = %v, %v; want the task %s", got, err, ask)
			}
			done := waitState(t, m, ask, a2a.TaskStateCompleted)
			var found bool
			for _, h := range done.History {
				found = found || h.ID == "reply-1"
			}
			if !found && kind != sdktest.Legacy {
				t.Errorf("the reply's messageId is not in the task history")
			}
			full, err := m.Get(ctx, "a", ask, 0, true)
			if err != nil || len(full.Artifacts) == 0 {
				t.Errorf("Get withArtifacts = %v, %v; want the summary artifact", full, err)
			}

			// Cancel a completed task: not cancelable, and we learn it completed.
			now, err := m.Cancel(ctx, "a", ask)
			if !errors.Is(err, a2a.ErrTaskNotCancelable) || now == nil || now.Status.State != a2a.TaskStateCompleted {
				t.Errorf("Cancel(completed) = %v, %v; want ErrTaskNotCancelable and the completed task", now, err)
			}
			// Cancel a running task.
			held := a.Send(t, "hold")
			now, err = m.Cancel(ctx, "a", held)
			if err != nil || now == nil || now.Status.State != a2a.TaskStateCanceled {
				t.Errorf("Cancel(running) = %v, %v; want canceled", now, err)
			}
		})
	}
}

// waitState polls Get until the task reaches st.
func waitState(t *testing.T, m *Manager, id a2a.TaskID, st a2a.TaskState) *a2a.Task {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		task, err := m.Get(t.Context(), "a", id, 0, false)
		if err == nil && task.Status.State == st {
			return task
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("task %s never reached %s", id, st)
	return nil
}

// Read-only agents refuse writes; unknown agents and deadlines classify.
func TestOperationGuards(t *testing.T) {
	a := sdktest.Start(t, sdktest.JSONRPC, false, nil)
	slow := sdktest.Start(t, sdktest.JSONRPC, false, trickle)
	ro := fast("ro", a.URL())
	ro.ReadOnly = true
	m := New([]AgentOptions{ro, fast("slow", slow.URL())}, Options{})
	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("x"))
	if _, err := m.Reply(t.Context(), "ro", msg); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Reply on read-only = %v", err)
	}
	if _, err := m.Cancel(t.Context(), "ro", "x"); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Cancel on read-only = %v", err)
	}
	if _, err := m.Get(t.Context(), "nobody", "x", 0, false); !errors.Is(err, ErrUnknownAgent) {
		t.Errorf("Get on unknown agent = %v", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	_, err := m.Get(ctx, "slow", "x", 0, false)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(Describe(err), "timed out") {
		t.Errorf("Get on a trickling agent = %v, want DeadlineExceeded", err)
	}
	if got := m.Agents(); len(got) != 2 || got[0] != "ro" {
		t.Errorf("Agents() = %v", got)
	}
}

// A wrong base URL says where the card was not found; card_path fixes it.
func TestCardNotFoundAndCardPath(t *testing.T) {
	a := sdktest.Start(t, sdktest.JSONRPC, false, nil)
	wrong := fast("wrong", a.URL()+"/nothing-here")
	path := fast("path", a.URL()+"/ignored")
	path.CardPath = "/../.well-known/agent-card.json"
	_, c := runManager(t, []AgentOptions{wrong, path}, Options{})
	c.waitFor(t, "card not found", 5*time.Second, func(evs []model.Event) bool {
		h := lastHealth(evs, "wrong")
		return h != nil && h.State == model.HealthBackoff && strings.Contains(h.Err, "card not found (404 at "+a.URL()+"/nothing-here") &&
			strings.Contains(h.Err, "base URL")
	})
	c.waitFor(t, "card_path works", 5*time.Second, healthIs("path", model.HealthSweeping))
}

// A response larger than MaxMessageBytes fails that agent alone.
func TestOversizedResponse(t *testing.T) {
	big := sdktest.Start(t, sdktest.JSONRPC, false, nil)
	ok := sdktest.Start(t, sdktest.JSONRPC, false, nil)
	bigID := big.Send(t, "big:65536")
	bo := fast("big", big.URL())
	bo.MaxMessageBytes = 16 << 10
	m, c := runManager(t, []AgentOptions{bo, fast("ok", ok.URL())}, Options{})
	id := ok.Send(t, "done")
	c.waitFor(t, "ok carries on", 5*time.Second, func(evs []model.Event) bool { return hasTask(evs, "ok", id, a2a.TaskStateCompleted) })
	c.waitFor(t, "big agent too large", 5*time.Second, func(evs []model.Event) bool {
		h := lastHealth(evs, "big")
		return h != nil && h.State == model.HealthBackoff && strings.Contains(h.Err, "response too large")
	})
	_, err := m.Get(t.Context(), "big", bigID, -1, false)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(Describe(err), "response too large") {
		t.Errorf("Get of an oversized task = %v, want ErrTooLarge", err)
	}
}

// A watched task the agent does not know is reported gone, once.
func TestWatchedUnknownTaskIsGone(t *testing.T) {
	a := sdktest.Start(t, sdktest.Legacy, false, nil)
	m, c := runManager(t, []AgentOptions{fast("a", a.URL())}, Options{})
	m.Watch("a", "vanished-task")
	c.waitFor(t, "gone", 5*time.Second, func(evs []model.Event) bool {
		for _, e := range evs {
			if e.Kind == model.EventGone && e.Task.ID == "vanished-task" {
				return true
			}
		}
		return false
	})
	calls := func() int { a.Icpt.Mu.Lock(); defer a.Icpt.Mu.Unlock(); return len(a.Icpt.Versions) }
	// Wait for more rounds (the card fetch and pollers reach the server).
	start := calls()
	m.Watch("a", a.Send(t, "ask"))
	c.waitFor(t, "more rounds", 5*time.Second, func([]model.Event) bool { return calls() >= start+5 })
	n := 0
	for _, e := range c.snapshot() {
		if e.Kind == model.EventGone {
			n++
		}
	}
	if n != 1 {
		t.Errorf("gone reported %d times, want 1 (the task is forgotten)", n)
	}
}

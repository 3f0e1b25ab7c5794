package a2aclient

import (
	"context"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/internal/sdktest"
	"a2atop/model"
)

// A watcher stopped and run again by RunAgent (a hub that lost an
// agent's lease and took it again) reports every task again at its first
// sweep, the finished ones too, however long ago it saw them: whoever
// applies its events is resynced. Calls counts what it asked.
func TestRunAgentAgainReportsEveryTask(t *testing.T) {
	a := sdktest.Start(t, sdktest.JSONRPC, false, nil)
	done := a.CreateInStore(t, a2a.TaskStateCompleted)
	m := New([]AgentOptions{fast("a", a.URL())}, Options{})
	for round := range 2 {
		ctx, cancel := context.WithCancel(context.Background())
		ran := make(chan error, 1)
		go func() { ran <- m.RunAgent(ctx, "a") }()
		seen := false
		deadline := time.After(30 * time.Second)
		for !seen {
			select {
			case ev := <-m.Events():
				seen = hasTask([]model.Event{ev}, "a", done, a2a.TaskStateCompleted)
			case <-deadline:
				t.Fatalf("run %d: the finished task was never reported", round+1)
			}
		}
		if round == 0 {
			if err := m.RunAgent(ctx, "a"); err == nil {
				t.Fatal("a second RunAgent while one runs was not refused")
			}
		}
		cancel()
		if err := <-ran; err != nil {
			t.Fatal(err)
		}
		drain(m)
	}
	if n := m.Calls("a")["ListTasks"]; n < 2 {
		t.Errorf("Calls counted %d ListTasks after two runs' sweeps, want at least 2", n)
	}
	if err := m.RunAgent(context.Background(), "nobody"); err == nil {
		t.Error("RunAgent of an unknown agent was not refused")
	}
}

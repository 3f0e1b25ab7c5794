package ui_test

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"a2atop/a2aclient"
	"a2atop/demo"
	"a2atop/model"
	"a2atop/ui"
	"a2atop/ui/theme"
)

// This file is in package ui_test on purpose: like main.go, it wires
// a2aclient to the dashboard. Package ui itself never imports a2aclient.

// demoTimings run the demo's scripts at test speed.
var demoTimings = demo.Timings{
	Step: 40 * time.Millisecond, LogEvery: 60 * time.Millisecond, LogChunks: 100,
	OutOfBand: 2 * time.Second, ApprovalExpiry: time.Minute, CancelAfter: 500 * time.Millisecond,
	Poll: 40 * time.Millisecond,
}

// TestDemoFlow runs the dashboard on the real demo fleet through the real
// watchers and walks tasks -> detail -> agents -> filter -> help.
func TestDemoFlow(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the demo fleet")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	df, err := demo.Start(ctx, demo.Options{Pace: 400 * time.Millisecond, Timings: demoTimings})
	if err != nil {
		t.Fatalf("demo.Start: %v", err)
	}
	defer df.Close()

	fleet := model.NewFleet(model.Options{})
	var agents []a2aclient.AgentOptions
	for _, a := range df.Agents() {
		fleet.AddAgent(a.Name, a.URL)
		agents = append(agents, a2aclient.AgentOptions{Name: a.Name, URL: a.URL, Binding: "auto", Protocol: "auto",
			Subscribe: true, SweepInterval: 100 * time.Millisecond})
	}
	mgr := a2aclient.New(agents, a2aclient.Options{})
	done := make(chan struct{})
	go func() { mgr.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	m := ui.New(ui.Options{Fleet: fleet, Events: mgr.Events(), Backend: mgr, Output: io.Discard,
		Theme: theme.New(theme.Options{Mode: theme.ModeDark}), HistoryLength: 10})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40))
	out := tm.Output()
	step := func(what string, keys []string, want ...string) {
		t.Helper()
		stepStart := time.Now()
		for _, k := range keys {
			tm.Send(key(k))
		}
		var seen bytes.Buffer
		teatest.WaitFor(t, out, func(b []byte) bool {
			seen.Reset()
			seen.Write(b)
			for _, w := range want {
				if !bytes.Contains(b, []byte(w)) {
					return false
				}
			}
			return true
		}, teatest.WithDuration(20*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
		t.Logf("%s: saw %v after %s", what, want, time.Since(stepStart).Round(time.Millisecond))
	}

	step("tasks", nil, "1 failed / 11 passed", "test-runner", "deployer", "code-reviewer")
	step("detail", []string{"tab", "tab", "enter"}, "Status message", "History (")
	step("agents", []string{"esc", "3"}, "Raw exchanges", "streaming")
	step("filter", []string{"1", "/", "9", "f", "3", "c", "2", "e", "1"}, "/9f3c2e1")
	tm.Send(key("enter"))
	step("help", []string{"?"}, "Keys — tasks")
	// Help closed and the filter cleared: the tasks screen shows the
	// code-reviewer's question again, which the filter hid. (Not the
	// footer's keys: the fleet's own notices, "… left Active", hold the
	// footer for 6 s each, and a busy demo fleet may leave it no quiet
	// 6 s before the wait ends.)
	step("help closed", []string{"esc", "esc"}, "UPD↓", demo.BranchQuestion)

	// An agent that stops mid-run shows as down, its tasks stale, and
	// recovers when it returns.
	if err := df.StopAgent(demo.Deployer); err != nil {
		t.Fatal(err)
	}
	step("deployer stopped", nil, "stale: agent")
	if err := df.StartAgent(demo.Deployer); err != nil {
		t.Fatal(err)
	}
	step("deployer back", nil, "5 up 0 degraded 0 down")
	step("help again", []string{"?"}, "Keys — tasks")

	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*ui.Model)
	view := final.View()
	if !strings.Contains(view, "Keys — tasks") {
		t.Fatalf("the walk did not end on the help screen:\n%s", view)
	}
	for _, a := range fleet.Agents() {
		if a.Name == demo.LegacyIntake {
			continue // A2A 0.3 without ListTasks: known only through watched tasks
		}
		if a.Counts[model.ClassActive]+a.Counts[model.ClassInterrupted]+a.Counts[model.ClassTerminal] == 0 {
			t.Errorf("agent %s has no tasks on screen", a.Name)
		}
	}
}

// key is the message a terminal sends for a key name.
func key(s string) tea.KeyMsg {
	switch s {
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	case "tab":
		return tea.KeyMsg{Type: tea.KeyTab}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

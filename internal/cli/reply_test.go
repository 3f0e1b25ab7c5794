package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/a2aclient"
	"a2atop/demo"
)

// quick are demo timings for tests: the same scripts in milliseconds.
var quick = demo.Timings{Step: 20 * time.Millisecond, LogEvery: 40 * time.Millisecond, LogChunks: 10,
	OutOfBand: 30 * time.Second, ApprovalExpiry: 30 * time.Second, CancelAfter: time.Second, Poll: 20 * time.Millisecond}

// waitingTask starts a task on agent with text and waits until it is in state.
func waitingTask(t *testing.T, agents []demo.Agent, agent, text string, state a2a.TaskState) a2a.TaskID {
	t.Helper()
	var opts []a2aclient.AgentOptions
	for _, a := range agents {
		opts = append(opts, a2aclient.AgentOptions{Name: a.Name, URL: a.URL})
	}
	m := a2aclient.New(opts, a2aclient.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	task, err := m.Reply(ctx, agent, a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text)))
	if err != nil || task == nil {
		t.Fatalf("starting a task on %s: %v, %v", agent, task, err)
	}
	for task.Status.State != state {
		if task.Status.State.Terminal() || ctx.Err() != nil {
			t.Fatalf("task on %s is %s, want %s", agent, task.Status.State, state)
		}
		time.Sleep(20 * time.Millisecond)
		if task, err = m.Get(ctx, agent, task.ID, 0, false); err != nil {
			t.Fatal(err)
		}
	}
	return task.ID
}

func TestReply(t *testing.T) {
	dir := isolate(t)
	agents := startDemo(t, demo.Options{NoPlanner: true, Timings: quick})
	cfg := writeConfig(t, dir, agents)
	ctx := context.Background()

	deploy := waitingTask(t, agents, demo.Deployer, "deploy 9f3c2e1 to staging", a2a.TaskStateAuthRequired)
	question := waitingTask(t, agents, demo.CodeReviewer, "review the change at 9f3c2e1", a2a.TaskStateInputRequired)
	other := waitingTask(t, agents, demo.Deployer, "deploy 9f3c2e1 to staging", a2a.TaskStateAuthRequired)

	tests := []struct {
		name string
		args []string
		code int
		want string // in stdout+stderr
		next string // the "next:" line, when one is printed
	}{
		{"no action", []string{demo.Deployer, string(deploy)}, exitUsage, "say what to send", ""},
		{"unknown agent", []string{"nobody", "x", "--approve"}, exitUsage, `no agent "nobody"`, ""},
		{"deny needs a reason", []string{demo.Deployer, string(other), "--deny"}, exitUsage, "needs a reason", ""},
		{"bad json", []string{demo.CodeReviewer, string(question), "--data", "{bad"}, exitUsage, "not valid JSON", ""},
		{"unknown task", []string{demo.Deployer, "no-such-task", "--approve"}, exitFailed, "task not found", ""},
		{"approve", []string{demo.Deployer, string(deploy), "--approve", "--reason", "ship it"}, exitOK, "approve → deployer",
			"next: watch the task; the agent decides what happens next"},
		{"approve again", []string{demo.Deployer, string(deploy), "--approve"}, exitFailed, "no longer waits", ""},
		{"answer a question", []string{demo.CodeReviewer, string(question), "--text", "main"}, exitOK, "reply → code-reviewer", ""},
		// The deployer fails a denied task: nothing is left to watch.
		{"by url", []string{agents[2].URL, string(other), "--deny", "--reason", "not today"}, exitOK, "(task now failed)",
			"next: nothing more to do: the task has ended (failed); its status says why\n"},
	}
	for _, tt := range tests {
		args := append([]string{"reply", "--config", cfg}, tt.args...)
		code, out, errOut := runCmd(ctx, args...)
		t.Logf("%s: %d\n%s%s", tt.name, code, out, errOut)
		if code != tt.code || !strings.Contains(out+errOut, tt.want) {
			t.Errorf("%s: a2atop %v = %d\n%s%s\nwant %d and %q", tt.name, args, code, out, errOut, tt.code, tt.want)
		}
		if tt.next != "" && !strings.Contains(out, tt.next) {
			t.Errorf("%s: stdout lacks %q:\n%s", tt.name, tt.next, out)
		}
	}
}

// An agent name that nothing configures is answered with where the
// configuration was looked for, and how to name the agent by URL instead.
func TestReplyUnknownAgentSaysWhereItLooked(t *testing.T) {
	dir := isolate(t)
	ctx := context.Background()
	code, out, errOut := runCmd(ctx, "reply", "code-reviewer", "4b9393bc", "--approve")
	def := filepath.Join(dir, "config", "a2atop", "config.toml")
	for _, want := range []string{`no agent "code-reviewer"`, "no --config", "$A2ATOP_CONFIG not set", def + " does not exist",
		"base URL (a2atop reply http://host:port TASK", "[[agent]]"} {
		if code != exitUsage || !strings.Contains(errOut, want) {
			t.Errorf("without a config: %d %q %q; want %d and %q", code, out, errOut, exitUsage, want)
		}
	}
	cfg := writeConfig(t, dir, []demo.Agent{{Name: "deployer", URL: "http://127.0.0.1:1"}})
	code, _, errOut = runCmd(ctx, "reply", "--config", cfg, "code-reviewer", "4b9393bc", "--approve")
	for _, want := range []string{`no agent "code-reviewer" in ` + cfg, "(configured: deployer)", "base URL"} {
		if code != exitUsage || !strings.Contains(errOut, want) {
			t.Errorf("with a config: %d %q; want %d and %q", code, errOut, exitUsage, want)
		}
	}
}

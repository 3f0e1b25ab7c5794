package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"a2atop/internal/agenttest"
)

// One agent whose token variable is unset does not stop check for the
// fleet: that agent's row fails with the config's words (file:line:key),
// the others are checked, and check exits 1, not 2. Before, check
// refused the whole config (exit 2) and reached no agent. tasks shares
// the first round and lists the other agents' tasks the same way.
func TestCheckOneAgentWithoutItsSecret(t *testing.T) {
	dir := isolate(t)
	t.Setenv("A2ATOP_TEST_UNSET", "")
	ag := agenttest.StartAgent(t)
	ag.Start("deploy")
	doc := "[[agent]]\nname = \"good\"\nurl = \"" + ag.URL + "\"\n" +
		"[[agent]]\nname = \"nosecret\"\nurl = \"" + ag.URL + "/other\"\n[agent.auth]\ntoken_env = \"A2ATOP_TEST_UNSET\"\n"
	path := filepath.Join(dir, "c.toml")
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCmd(context.Background(), "check", "--config", path, "--timeout", "20s")
	if code != exitFailed {
		t.Fatalf("check = %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitFailed, out, errOut)
	}
	for _, want := range []string{"1 of 2 agents reachable", path + ":8: agent \"nosecret\".auth.token_env: environment variable A2ATOP_TEST_UNSET is not set"} {
		if !strings.Contains(out, want) {
			t.Errorf("check's output lacks %q:\n%s", want, out)
		}
	}
	good := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "good ") {
			good = l
		}
	}
	if !strings.HasSuffix(strings.TrimSpace(good), " ok") {
		t.Errorf("the agent with its secrets was not checked: %q", good)
	}

	code, out, errOut = runCmd(context.Background(), "tasks", "--config", path, "--timeout", "20s")
	if code != exitFailed || !strings.Contains(out, "good") || !strings.Contains(errOut, "A2ATOP_TEST_UNSET is not set") {
		t.Errorf("tasks = %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

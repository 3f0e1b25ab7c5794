package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/charmbracelet/x/ansi"

	"a2atop/demo"
	"a2atop/model"
)

// On a terminal, tasks shows the short ids the screens show and cuts
// every line to the terminal's width.
func TestTasksTableOnATerminal(t *testing.T) {
	dir := isolate(t)
	agents := startDemo(t, demo.Options{NoPlanner: true, Timings: quick})
	cfg := writeConfig(t, dir, agents)
	deploy := waitingTask(t, agents, demo.Deployer, "deploy 9f3c2e1 to staging", a2a.TaskStateAuthRequired)
	ctx := context.Background()
	term, read := openTerminal(t, 60)
	code := run(ctx, []string{"tasks", "--config", cfg}, Streams{Out: term, Err: &syncBuffer{}})
	shown := strings.ReplaceAll(read(), "\r\n", "\n")
	if code != exitOK || !strings.Contains(shown, model.ShortID(deploy)+" ") || strings.Contains(shown, string(deploy)) {
		t.Errorf("on a terminal: %d, want the short id %s:\n%s", code, model.ShortID(deploy), shown)
	}
	cut := false
	for line := range strings.SplitSeq(strings.TrimRight(shown, "\n"), "\n") {
		if w := ansi.StringWidth(line); w > 60 {
			t.Errorf("line %d wide on a 60-column terminal: %q", w, line)
		}
		cut = cut || strings.HasSuffix(line, "…")
	}
	if !cut {
		t.Errorf("no line cut to the terminal's 60 columns:\n%s", shown)
	}
}

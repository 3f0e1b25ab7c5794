package cli

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/demo"
)

// tableRows splits a table into its header and rows of cells (cells are
// two or more spaces apart; a cell holds single spaces at most).
func tableRows(out string) (header []string, rows [][]string) {
	for i, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		var cells []string
		for c := range strings.SplitSeq(line, "  ") {
			if c = strings.TrimSpace(c); c != "" {
				cells = append(cells, c)
			}
		}
		if i == 0 {
			header = cells
		} else {
			rows = append(rows, cells)
		}
	}
	return header, rows
}

// tasks without --json prints a table: agent, id, state, age, status,
// aligned; piped, the ids and texts are whole; --state and --agent filter
// it and the JSON alike.
func TestTasksTable(t *testing.T) {
	dir := isolate(t)
	agents := startDemo(t, demo.Options{NoPlanner: true, Timings: quick})
	cfg := writeConfig(t, dir, agents)
	deploy := waitingTask(t, agents, demo.Deployer, "deploy 9f3c2e1 to staging", a2a.TaskStateAuthRequired)
	question := waitingTask(t, agents, demo.CodeReviewer, "review the change at 9f3c2e1", a2a.TaskStateInputRequired)
	ctx := context.Background()

	code, out, errOut := runCmd(ctx, "tasks", "--config", cfg)
	if code != exitOK {
		t.Fatalf("tasks = %d\n%s%s", code, out, errOut)
	}
	header, rows := tableRows(out)
	if !slices.Equal(header, []string{"AGENT", "ID", "STATE", "AGE", "STATUS"}) {
		t.Fatalf("header %q:\n%s", header, out)
	}
	idCol := strings.Index(strings.SplitN(out, "\n", 2)[0], "ID")
	byID := map[string][]string{}
	for i, line := range strings.Split(strings.TrimRight(out, "\n"), "\n")[1:] {
		if len(rows[i]) < 5 || strings.Index(line, rows[i][1]) != idCol {
			t.Errorf("row %q is not aligned under the header:\n%s", line, out)
			continue
		}
		byID[rows[i][1]] = rows[i]
	}
	if r := byID[string(deploy)]; len(r) < 5 || r[0] != demo.Deployer || r[2] != "auth-required" || !strings.Contains(r[4], "staging") {
		t.Errorf("deploy row = %q, want deployer, the full id, auth-required and its question:\n%s", r, out)
	}
	if r := byID[string(question)]; len(r) < 5 || r[0] != demo.CodeReviewer || r[2] != "input-required" {
		t.Errorf("question row = %q:\n%s", r, out)
	}

	// The filters, in both forms.
	for _, tt := range []struct {
		args []string
		want []string // the ids, in order
	}{
		{[]string{"--state", "input"}, []string{string(question)}},
		{[]string{"--state", "AUTH_REQUIRED"}, []string{string(deploy)}},
		{[]string{"--agent", "dep"}, []string{string(deploy)}},
		{[]string{"--agent", "code", "--state", "auth"}, nil},
	} {
		code, out, errOut := runCmd(ctx, append([]string{"tasks", "--config", cfg}, tt.args...)...)
		_, rows := tableRows(out)
		var ids []string
		for _, r := range rows {
			ids = append(ids, r[1])
		}
		if code != exitOK || !slices.Equal(ids, tt.want) || len(tt.want) == 0 && !strings.Contains(errOut, "no tasks") {
			t.Errorf("tasks %v = %d, ids %q, want %q\n%s%s", tt.args, code, ids, tt.want, out, errOut)
		}
		code, out, _ = runCmd(ctx, append([]string{"tasks", "--json", "--config", cfg}, tt.args...)...)
		var doc struct {
			Agents []struct{ Name string }
			Tasks  []struct{ ID string }
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil || code != exitOK {
			t.Fatalf("tasks --json %v = %d, %v", tt.args, code, err)
		}
		ids = nil
		for _, tk := range doc.Tasks {
			ids = append(ids, tk.ID)
		}
		if !slices.Equal(ids, tt.want) {
			t.Errorf("tasks --json %v: ids %q, want %q", tt.args, ids, tt.want)
		}
		if slices.Contains(tt.args, "--agent") && (len(doc.Agents) != 1 || !strings.HasPrefix(doc.Agents[0].Name, tt.args[1])) {
			t.Errorf("tasks --json %v: agents %+v, want the one --agent names", tt.args, doc.Agents)
		}
	}
	// A typo is a usage error naming what there is, not "no tasks".
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--state", "c"}, `--state "c": state:c could be completed or canceled`},
		{[]string{"--state", "bogus"}, `--state "bogus": state:bogus names no state: use submitted, working, input-required`},
		{[]string{"--state", "waiting"}, `--state "waiting": state:waiting names no state`},
		{[]string{"--agent", "nosuch"}, `--agent "nosuch": no agent's name starts with it; the agents: ` + demo.TestRunner},
	} {
		code, out, errOut := runCmd(ctx, append([]string{"tasks", "--config", cfg}, tt.args...)...)
		if code != exitUsage || !strings.Contains(errOut, tt.want) || out != "" {
			t.Errorf("tasks %v = %d %q %q, want %d and %q", tt.args, code, out, errOut, exitUsage, tt.want)
		}
	}
}

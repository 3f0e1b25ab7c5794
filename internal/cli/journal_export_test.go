package cli

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/demo"
)

// TestJournalExport: after an approve and a deny through `a2atop reply`
// on the demo's deployer, `a2atop journal --format csv` is read back by
// encoding/csv with one row per decision (who, what, when, the outcome,
// the states after); --format jsonl is one JSON object per line; --since
// keeps the recent; --out writes a 0600 file and never over one.
func TestJournalExport(t *testing.T) {
	dir := isolate(t)
	agents := startDemo(t, demo.Options{NoPlanner: true, Timings: quick})
	cfg := writeConfig(t, dir, agents)
	ctx := context.Background()
	first := waitingTask(t, agents, demo.Deployer, "deploy 9f3c2e1 to staging", a2a.TaskStateAuthRequired)
	if code, out, errOut := runCmd(ctx, "reply", "--config", cfg, demo.Deployer, string(first), "--approve"); code != exitOK {
		t.Fatalf("reply: %d\n%s%s", code, out, errOut)
	}
	second := waitingTask(t, agents, demo.Deployer, "deploy 9f3c2e1 to staging", a2a.TaskStateAuthRequired)
	if code, out, errOut := runCmd(ctx, "reply", "--config", cfg, demo.Deployer, string(second), "--deny", "--reason", "=freeze, said @ops"); code != exitOK {
		t.Fatalf("reply --deny: %d\n%s%s", code, out, errOut)
	}

	code, out, errOut := runCmd(ctx, "journal", "--config", cfg, "--format", "csv")
	if code != exitOK {
		t.Fatalf("journal --format csv: %d\n%s", code, errOut)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatalf("the export is not CSV: %v\n%s", err, out)
	}
	if !slices.Equal(rows[0], exportColumns) {
		t.Fatalf("header %v", rows[0])
	}
	col := func(name string) int { return slices.Index(exportColumns, name) }
	byTask := map[string][]string{}
	for _, r := range rows[1:] {
		if len(r) != len(exportColumns) {
			t.Fatalf("row of %d cells: %v", len(r), r)
		}
		if r[col("kind")] != "observed" {
			byTask[r[col("task")]] = r
		}
	}
	a, d := byTask[string(first)], byTask[string(second)]
	if a == nil || d == nil {
		t.Fatalf("the export lacks a decision:\n%s", out)
	}
	if a[col("kind")] != "approve" || a[col("outcome")] != "accepted" || a[col("agent")] != demo.Deployer ||
		a[col("approver")] == "" || a[col("decided_at")] == "" || !strings.Contains(a[col("payload")], "approve") {
		t.Errorf("the approve row: %v", a)
	}
	if d[col("kind")] != "deny" || d[col("reason")] != "'=freeze, said @ops" {
		t.Errorf("the deny row (its reason kept from spreadsheets' formulas): %v", d)
	}
	if !strings.Contains(a[col("later_states")], "auth-required → ") {
		t.Errorf("the approve row does not say what the agent did after: %q", a[col("later_states")])
	}

	code, out, _ = runCmd(ctx, "journal", "--config", cfg, "--format", "jsonl", "--since", "1h")
	sc := bufio.NewScanner(strings.NewReader(out))
	n := 0
	for sc.Scan() {
		var r exportRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		n++
	}
	if code != exitOK || n < 2 {
		t.Fatalf("jsonl: %d, %d lines\n%s", code, n, out)
	}
	if code, out, _ := runCmd(ctx, "journal", "--config", cfg, "--since", "1ns"); code != exitOK || strings.Count(out, "\n") != 1 {
		t.Errorf("--since 1ns kept more than the header: %q", out)
	}
	path := filepath.Join(dir, "audit.csv")
	if code, _, errOut := runCmd(ctx, "journal", "--config", cfg, "--out", path); code != exitOK {
		t.Fatalf("--out: %s", errOut)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("the export file: %v %v", st, err)
	}
	if code, _, _ := runCmd(ctx, "journal", "--config", cfg, "--out", path); code != exitFailed {
		t.Error("--out wrote over a file that exists")
	}
	if code, _, _ := runCmd(ctx, "journal", "--config", cfg, "--format", "xml"); code != exitUsage {
		t.Error("--format xml was not a usage error")
	}
}

// TestTasksCSV: `a2atop tasks --format csv` is read back by encoding/csv,
// one row per task.
func TestTasksCSV(t *testing.T) {
	dir := isolate(t)
	agents := startDemo(t, demo.Options{NoPlanner: true, Timings: quick})
	cfg := writeConfig(t, dir, agents)
	deploy := waitingTask(t, agents, demo.Deployer, "deploy 9f3c2e1 to staging", a2a.TaskStateAuthRequired)
	code, out, errOut := runCmd(context.Background(), "tasks", "--config", cfg, "--format", "csv")
	if code != exitOK {
		t.Fatalf("tasks --format csv: %d %s", code, errOut)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || !slices.Equal(rows[0], taskColumns) {
		t.Fatalf("not the CSV of the tasks: %v\n%s", err, out)
	}
	found := false
	for _, r := range rows[1:] {
		if r[1] == string(deploy) {
			found = r[0] == demo.Deployer && r[2] == "auth-required" && strings.Contains(r[7], "staging")
		}
	}
	if !found {
		t.Fatalf("no row for the deploy %s:\n%s", deploy, out)
	}
}

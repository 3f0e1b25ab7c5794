package cli

import (
	"context"
	"encoding/csv"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/demo"
)

// padJournal writes n observation records of about 1 KB each to a new
// journal at path, as a2atop writes them (version 2, CRC-32C sum last).
func padJournal(t *testing.T, path string, n int) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := range n {
		body := fmt.Sprintf(`{"v":2,"type":"state","at":"2026-11-30T10:00:00Z","agent":"%s","task":"pad-%03d","from":"TASK_STATE_WORKING","to":"TASK_STATE_COMPLETED","source":"fleet","note":"%s"}`,
			demo.Deployer, i, strings.Repeat("x", 900))
		sum := crc32.Checksum([]byte(body), crc32.MakeTable(crc32.Castagnoli))
		fmt.Fprintf(&b, "%s,\"sum\":\"%08x\"}\n", body[:len(body)-1], sum)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestJournalSegmentsReadByCheckAndExport: with journal_segment =
// "64KiB", a reply that takes the journal past 64 KiB closes the segment
// (journal.jsonl.000001, mode 0400) and the next reply goes to the new
// one. `journal check` reads both and says so; the export holds every
// decision and observation of both once; a byte changed in the closed
// segment is listed with the file and its line there, and --accept
// resolves it.
func TestJournalSegmentsReadByCheckAndExport(t *testing.T) {
	dir := isolate(t)
	agents := startDemo(t, demo.Options{NoPlanner: true, Timings: quick})
	base, err := os.ReadFile(writeConfig(t, dir, agents))
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "segments.toml")
	if err := os.WriteFile(cfg, append([]byte("journal_segment = \"64KiB\"\n"), base...), 0o600); err != nil {
		t.Fatal(err)
	}
	journal := filepath.Join(dir, "state", "a2atop", "journal.jsonl")
	padJournal(t, journal, 70)
	ctx := context.Background()

	var tasks []a2a.TaskID
	for _, flags := range [][]string{{"--approve"}, {"--deny", "--reason", "freeze"}} {
		task := waitingTask(t, agents, demo.Deployer, "deploy 9f3c2e1 to staging", a2a.TaskStateAuthRequired)
		if code, out, errOut := runCmd(ctx, append([]string{"reply", "--config", cfg, demo.Deployer, string(task)}, flags...)...); code != exitOK {
			t.Fatalf("reply %v: %d\n%s%s", flags, code, out, errOut)
		}
		tasks = append(tasks, task)
	}
	closed := journal + ".000001"
	if fi, err := os.Stat(closed); err != nil || fi.Mode().Perm() != 0o400 {
		t.Fatalf("the closed segment: %v %v", fi, err)
	}
	if _, err := os.Stat(journal + ".000002"); err == nil {
		t.Fatal("the small second reply closed a segment too")
	}

	code, out, errOut := runCmd(ctx, "journal", "check", "--config", cfg)
	if code != exitOK || !strings.Contains(out, "read 2 segments, journal.jsonl.000001 to journal.jsonl") || !strings.Contains(out, "every line reads back") {
		t.Fatalf("journal check: %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCmd(ctx, "journal", "--config", cfg, "--format", "csv")
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if code != exitOK || err != nil {
		t.Fatalf("journal --format csv: %d %v\n%s", code, err, errOut)
	}
	col := func(name string) int { return slices.Index(exportColumns, name) }
	perTask := map[string]int{}
	for _, r := range rows[1:] {
		perTask[r[col("task")]]++
	}
	for _, task := range tasks {
		if perTask[string(task)] != 1 {
			t.Fatalf("task %s is %d times in the export:\n%s", task, perTask[string(task)], out)
		}
	}
	for i := range 70 {
		if task := fmt.Sprintf("pad-%03d", i); perTask[task] != 1 {
			t.Fatalf("observation %s is %d times in the export", task, perTask[task])
		}
	}

	b, err := os.ReadFile(closed)
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(b), "pad-004")
	b[i+4] = '9' // line 5 of the closed segment: still JSON, no longer the record written
	if err := os.Chmod(closed, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(closed, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(closed, 0o400); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runCmd(ctx, "journal", "check", "--config", cfg)
	if code != exitFailed || !strings.Contains(out, "line 5: damaged") || !strings.Contains(out, "in: "+closed+" line 5") {
		t.Fatalf("journal check of a changed closed segment: %d\n%s", code, out)
	}
	if code, out, errOut := runCmd(ctx, "journal", "check", "--config", cfg, "--accept", "5", "--note", "padding"); code != exitOK {
		t.Fatalf("accept: %d\n%s%s", code, out, errOut)
	}
	if code, out, _ := runCmd(ctx, "journal", "check", "--config", cfg); code != exitOK || !strings.Contains(out, "accepted by ") {
		t.Fatalf("check after accepting: %d\n%s", code, out)
	}
}

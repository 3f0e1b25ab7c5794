package cli

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/approvals"
	"a2atop/demo"
)

// segmentedJournal writes n real records with a real Service that
// rotates the journal at 2 KiB and signs a checkpoint every 5 records
// (as a hub does) and when it closes; it returns the segments, oldest
// first.
func segmentedJournal(t *testing.T, path string, n int, key ed25519.PrivateKey) []string {
	t.Helper()
	svc, err := approvals.Open(approvals.Options{JournalPath: path, Approver: "tester@host", Segment: approvals.SegmentPolicy{Size: 2 << 10},
		Checkpoints: &approvals.Checkpoints{Key: key, Every: 5}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := svc.NoteLeft("deployer", a2a.TaskID(fmt.Sprintf("task-%02d", i)), a2a.TaskStateInputRequired, a2a.TaskStateWorking,
			fmt.Sprintf("note %d %s", i, strings.Repeat("x", 200))); err != nil {
			t.Fatal(err)
		}
	}
	if err := svc.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	if err := svc.Close(); err != nil {
		t.Fatal(err)
	}
	files, err := approvals.SegmentFiles(path)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestJournalVerifyWalksEverySegment: `a2atop journal verify` of the
// configured journal, which rotated (journal_segment), walks every
// segment in order: clean, it says how many it walked and verifies the
// hub's checkpoints in all of them with --key; a byte changed in the
// oldest closed segment is named at that file and its line there, and a
// closed segment removed is named at the first line of the one after.
func TestJournalVerifyWalksEverySegment(t *testing.T) {
	dir := isolate(t)
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	journal := filepath.Join(dir, "state", "a2atop", "journal.jsonl")
	files := segmentedJournal(t, journal, 40, key)
	if len(files) < 3 {
		t.Fatalf("segments %v, want 3 or more", files)
	}
	cfg := filepath.Join(dir, "segments.toml")
	if err := os.WriteFile(cfg, []byte("journal_segment = \"64KiB\"\n[[agent]]\nname = \"deployer\"\nurl = \"http://127.0.0.1:9/\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(dir, "hub.pub")
	if err := os.WriteFile(keyFile, approvals.PublicKeyPEM(key.Public().(ed25519.PublicKey)), 0o600); err != nil {
		t.Fatal(err)
	}
	lines := 0
	for _, f := range files {
		lines += len(readLines(t, f)) - 1
	}
	code, out := verify(t, "--config", cfg, "--key", keyFile)
	want := fmt.Sprintf("chain verified: %d records from line 1 of journal.jsonl.000001", lines)
	if code != exitOK || !strings.Contains(out, fmt.Sprintf("walked %d segments in order, journal.jsonl.000001 to journal.jsonl", len(files))) ||
		!strings.Contains(out, want) || !strings.Contains(out, "(given with --key)") || strings.Contains(out, "not signed yet") {
		t.Fatalf("a clean journal of %d segments: %d\n%s\nwant %q", len(files), code, out, want)
	}

	code, out = verify(t, journal) // an auditor who names the open segment alone
	if code != exitFailed || !strings.Contains(out, fmt.Sprintf("%d closed segment(s) lie beside it", len(files)-1)) ||
		!strings.Contains(out, "journal.jsonl.000001 … journal.jsonl, oldest first") {
		t.Fatalf("the open segment alone: %d\n%s", code, out)
	}

	first := readLines(t, files[0])
	first[2] = bytes.Replace(first[2], []byte("task-"), []byte("tasK-"), 1)
	if err := os.Chmod(files[0], 0o600); err != nil {
		t.Fatal(err)
	}
	writeLines(t, files[0], first)
	code, out = verify(t, "--config", cfg, "--key", keyFile)
	if code != exitFailed || !strings.Contains(out, "\n"+files[0]+" line 3 (edited)") {
		t.Fatalf("a byte changed in the oldest segment: %d\n%s", code, out)
	}

	if err := os.Remove(files[1]); err != nil {
		t.Fatal(err)
	}
	code, out = verify(t, "--config", cfg, "--key", keyFile)
	if code != exitFailed || !strings.Contains(out, "\n"+files[2]+" line 1 (removed)") {
		t.Fatalf("a closed segment removed: %d\n%s", code, out)
	}
}

// TestJournalExportAcrossSegments: the export of a journal that rotated
// holds every record of every segment once, each naming the journal
// line it rests on by seq and SHA-256 — a line of one of the segment
// files, hashed with no a2atop code — and `journal check` reads all the
// segments.
func TestJournalExportAcrossSegments(t *testing.T) {
	dir := isolate(t)
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	journal := filepath.Join(dir, "state", "a2atop", "journal.jsonl")
	files := segmentedJournal(t, journal, 40, key)
	cfg := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfg, []byte("journal_path = \""+journal+"\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	seqOf := map[string]int{} // sha256 of a line of any segment → its seq
	seqField := regexp.MustCompile(`"seq":(\d+)`)
	for _, f := range files {
		for _, l := range readLines(t, f) {
			if raw := bytes.TrimSuffix(l, []byte("\n")); len(raw) > 0 {
				sum := sha256.Sum256(raw)
				m := seqField.FindSubmatch(raw)
				n, _ := strconv.Atoi(string(m[1]))
				seqOf["sha256:"+hex.EncodeToString(sum[:])] = n
			}
		}
	}
	code, out, errOut := runCmd(context.Background(), "journal", "--config", cfg, "--format", "jsonl")
	if code != exitOK {
		t.Fatalf("export: %d %s%s", code, out, errOut)
	}
	tasks := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var r exportRecord
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		tasks[string(r.Task)]++
		if len(r.JournalLines) == 0 {
			t.Errorf("task %s names no journal line", r.Task)
		}
		for _, jl := range r.JournalLines {
			if seq, ok := seqOf[jl.SHA256]; !ok || seq != jl.Seq {
				t.Errorf("task %s rests on %+v: no line of the %d segments hashes so (seq %d)", r.Task, jl, len(files), seq)
			}
		}
	}
	for i := range 40 {
		if task := fmt.Sprintf("task-%02d", i); tasks[task] != 1 {
			t.Errorf("%s is %d times in the export", task, tasks[task])
		}
	}
	code, out, errOut = runCmd(context.Background(), "journal", "check", "--config", cfg)
	if code != exitOK || !strings.Contains(out, fmt.Sprintf("read %d segments, journal.jsonl.000001 to journal.jsonl", len(files))) {
		t.Fatalf("journal check: %d\n%s%s", code, out, errOut)
	}
}

// TestServeSignsAcrossARotation: the real `a2atop serve` with
// journal_segment = "64KiB" on a hub journal of about 70 KiB: the
// approval through it closes the segment; once the hub stops, `journal
// verify --config --key` with the key of `serve --print-key` walks both
// segments clean, every checkpoint the hub's (the new segment's and the
// shutdown's), nothing unsigned.
func TestServeSignsAcrossARotation(t *testing.T) {
	dir := isolate(t)
	agents := startDemo(t, demo.Options{NoPlanner: true, Timings: quick})
	base, err := os.ReadFile(writeHubConfig(t, dir, agents, 200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "hub-segments.toml")
	if err := os.WriteFile(cfg, append([]byte("journal_segment = \"64KiB\"\n"), base...), 0o600); err != nil {
		t.Fatal(err)
	}
	journal := filepath.Join(dir, "hub-journal.jsonl")
	padJournal(t, journal, 70)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--config", cfg, "--listen", "127.0.0.1:0"}, Streams{Out: &out, Err: &errOut})
	}()
	var url string
	eventually(t, "the hub listens", func() bool {
		m := hubLine.FindStringSubmatch(out.String())
		if m != nil {
			url = m[1]
		}
		return m != nil
	})
	deploy := waitingTask(t, agents, demo.Deployer, "deploy 9f3c2e1 to staging", a2a.TaskStateAuthRequired)
	t.Setenv("A2ATOP_HUB_TOKEN", tokenOf("alice"))
	eventually(t, "the approval through the hub, once it holds the task", func() bool {
		code, o, e := runCmd(context.Background(), "reply", "--hub", url, demo.Deployer, string(deploy), "--approve")
		if code != exitOK && !strings.Contains(o+e, "task not found") && !strings.Contains(o+e, "no longer waits for an answer") { // the hub's fleet has not caught up
			t.Fatalf("reply --hub --approve: %d %s%s", code, o, e)
		}
		return code == exitOK
	})
	cancel()
	if code := <-done; code != exitOK {
		t.Fatalf("serve = %d: %s", code, errOut.String())
	}
	if _, err := os.Stat(journal + ".000001"); err != nil {
		t.Fatalf("the approval did not close the segment: %v", err)
	}
	code, printed, _ := runCmd(context.Background(), "serve", "--print-key", "--config", cfg)
	keyFile := filepath.Join(dir, "hub.pub")
	if err := os.WriteFile(keyFile, []byte(printed), 0o600); code != exitOK || err != nil {
		t.Fatalf("serve --print-key: %d %v", code, err)
	}
	code, vout := verify(t, "--config", cfg, "--key", keyFile)
	if code != exitOK || !strings.Contains(vout, "walked 2 segments in order, hub-journal.jsonl.000001 to hub-journal.jsonl") ||
		!regexp.MustCompile(`checkpoints: [2-9] verify with ed25519:\S+ \(given with --key\)`).MatchString(vout) || strings.Contains(vout, "not signed yet") {
		t.Fatalf("verify of the hub's rotated journal: %d %s", code, vout)
	}
}

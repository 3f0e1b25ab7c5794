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
	"hash/crc32"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/approvals"
)

// chainJournal writes n real records (a task leaving the inbox, as the
// dashboard journals it) with a real Service into a new journal; with
// key it signs a checkpoint every 5 records and one when it closes, as
// a hub does.
func chainJournal(t *testing.T, path string, n int, key ed25519.PrivateKey) {
	t.Helper()
	o := approvals.Options{JournalPath: path, Approver: "tester@host"}
	if key != nil {
		o.Checkpoints = &approvals.Checkpoints{Key: key, Every: 5}
	}
	svc, err := approvals.Open(o)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := svc.NoteLeft("deployer", a2a.TaskID(fmt.Sprintf("task-%02d", i)), a2a.TaskStateInputRequired, a2a.TaskStateWorking, fmt.Sprintf("note %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if key != nil {
		if err := svc.Checkpoint(); err != nil {
			t.Fatal(err)
		}
	}
	if err := svc.Close(); err != nil {
		t.Fatal(err)
	}
}

func readLines(t *testing.T, path string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.SplitAfter(b, []byte("\n"))
}

func writeLines(t *testing.T, path string, lines [][]byte) {
	t.Helper()
	if err := os.WriteFile(path, bytes.Join(lines, nil), 0o600); err != nil {
		t.Fatal(err)
	}
}

var sumMember = regexp.MustCompile(`,"sum":"[0-9a-f]{8}"}\n?$`)

// resum gives an edited line the checksum it would have had: what a
// careful forger does.
func resum(line []byte) []byte {
	nl := bytes.HasSuffix(line, []byte("\n"))
	body := append(sumMember.ReplaceAll(bytes.Clone(line), nil), '}')
	out := fmt.Appendf(body[:len(body)-1], `,"sum":"%08x"}`, crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)))
	if nl {
		out = append(out, '\n')
	}
	return out
}

var chainMembers = regexp.MustCompile(`,"seq":\d+(,"prev":"sha256:[0-9a-f]{64}")?`)

// relink gives a line another place in the chain: seq, and prev the hash
// of the line before (without its newline).
func relink(line []byte, seq int, before []byte) []byte {
	prev := sha256.Sum256(bytes.TrimSuffix(before, []byte("\n")))
	return resum(chainMembers.ReplaceAll(line, fmt.Appendf(nil, `,"seq":%d,"prev":"sha256:%s"`, seq, hex.EncodeToString(prev[:]))))
}

func verify(t *testing.T, args ...string) (int, string) {
	t.Helper()
	code, out, errOut := runCmd(context.Background(), append([]string{"journal", "verify"}, args...)...)
	t.Logf("journal verify %v: %d\n%s%s", args, code, out, errOut)
	return code, out + errOut
}

// TestJournalVerifyNamesEachBreak: a journal of 20 records written by
// the real Service verifies clean; each way of changing it afterwards
// is named by `a2atop journal verify`, at the line where it was done,
// with exit 1.
func TestJournalVerifyNamesEachBreak(t *testing.T) {
	dir := isolate(t)
	clean := filepath.Join(dir, "state", "clean.jsonl")
	chainJournal(t, clean, 20, nil)
	if code, out := verify(t, clean); code != exitOK || !strings.Contains(out, "chain verified: 20 records from line 1; head sha256:") {
		t.Fatalf("a clean journal: %d %s", code, out)
	}
	orig := readLines(t, clean)
	forged := bytes.Replace(orig[19], []byte(`note 19`), []byte(`note 99`), 1)
	cases := []struct {
		name, want string
		change     func(l [][]byte) [][]byte
	}{
		{"flip a byte", "line 7 (edited): it is not a record (its checksum does not match", func(l [][]byte) [][]byte {
			l[6] = bytes.Replace(l[6], []byte("note 6"), []byte("note 7"), 1)
			return l
		}},
		{"edit with the checksum made again", "line 7 (edited): line 8 links to other bytes than it holds", func(l [][]byte) [][]byte {
			l[6] = resum(bytes.Replace(l[6], []byte("note 6"), []byte("note X"), 1))
			return l
		}},
		{"delete a line", "line 7 (removed): 1 record(s) (seq 7–7) were removed before it, after line 6", func(l [][]byte) [][]byte {
			return append(l[:6:6], l[7:]...)
		}},
		{"swap two lines", "line 7 (reordered): line 7 (seq 8) comes before line 8 (seq 7)", func(l [][]byte) [][]byte {
			l[6], l[7] = l[7], l[6]
			return l
		}},
		{"insert a forged record, linked", "line 7 (inserted): lines 7 and 8 both claim seq 7, and line 9 links to line 8: line 7 was inserted", func(l [][]byte) [][]byte {
			f := relink(bytes.Replace(l[6], []byte("note 6"), []byte("note F"), 1), 7, l[5])
			return append(l[:6:6], append([][]byte{f}, l[6:]...)...)
		}},
		{"append a forged record, linked as the last", "line 21 (inserted): it claims seq 20, the place of line 20", func(l [][]byte) [][]byte {
			return append(l[:20:20], resum(forged))
		}},
		{"append a record without the chain", "line 21 (inserted): a record without the chain's seq and prev", func(l [][]byte) [][]byte {
			return append(l[:20:20], resum(chainMembers.ReplaceAll(forged, nil)))
		}},
		{"truncate inside the last line", "line 20 (cut): the journal ends in a line without its newline", func(l [][]byte) [][]byte {
			l[19] = l[19][:len(l[19])/2]
			return l
		}},
		{"truncate and append", "line 16 (removed): 4 record(s) (seq 16–19) were removed before it, after line 15", func(l [][]byte) [][]byte {
			return append(l[:15:15], l[19:]...)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, "state", strings.ReplaceAll(c.name, " ", "-")+".jsonl")
			lines := make([][]byte, len(orig))
			for i := range orig {
				lines[i] = bytes.Clone(orig[i])
			}
			writeLines(t, p, c.change(lines))
			code, out := verify(t, p)
			if code != exitFailed || !strings.Contains(out, "the chain is broken") || !strings.Contains(out, "\n"+c.want) {
				t.Fatalf("want exit 1 and %q, got %d:\n%s", c.want, code, out)
			}
		})
	}
}

// TestJournalVerifyCheckpoints: a journal signed as a hub signs it
// verifies with the hub's public key given as --key (the PEM block
// serve --print-key prints); a checkpoint whose signature was replaced
// by another (valid, of another head) is named at its line, and so is a
// journal checked with another key.
func TestJournalVerifyCheckpoints(t *testing.T) {
	dir := isolate(t)
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	path := filepath.Join(dir, "state", "hub.jsonl")
	chainJournal(t, path, 12, key)
	keyFile := filepath.Join(dir, "hub.pub")
	if err := os.WriteFile(keyFile, approvals.PublicKeyPEM(key.Public().(ed25519.PublicKey)), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out := verify(t, "--key", keyFile, path)
	// 12 records, a checkpoint after the 5th and the 10th, one at close: 15 lines
	if code != exitOK || !strings.Contains(out, "chain verified: 15 records from line 1") ||
		!strings.Contains(out, "checkpoints: 3 verify with "+approvals.KeyText(key.Public().(ed25519.PublicKey))+" (given with --key); the last, line 15") {
		t.Fatalf("a signed journal: %d %s", code, out)
	}

	lines := readLines(t, path)
	sig := regexp.MustCompile(`"sig":"[^"]*"`)
	if !bytes.Contains(lines[5], []byte(`"type":"checkpoint"`)) || !bytes.Contains(lines[11], []byte(`"type":"checkpoint"`)) {
		t.Fatalf("no checkpoints at lines 6 and 12:\n%s", bytes.Join(lines, nil))
	}
	lines[11] = resum(sig.ReplaceAll(lines[11], sig.Find(lines[5])))
	writeLines(t, path, lines)
	if code, out := verify(t, "--key", keyFile, path); code != exitFailed || !strings.Contains(out, "\nline 12 (signature): the checkpoint's signature does not verify") {
		t.Fatalf("a replaced signature: %d %s", code, out)
	}

	other, _, _ := ed25519.GenerateKey(rand.Reader)
	if err := os.WriteFile(keyFile, []byte(approvals.KeyText(other)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out := verify(t, "--key", keyFile, path); code != exitFailed || !strings.Contains(out, "\nline 6 (signature): the checkpoint is signed by key") {
		t.Fatalf("another key: %d %s", code, out)
	}
}

// TestJournalVerifyOlderJournal: a journal written before the chain
// (records without seq and prev) stays readable; the chain starts at
// the first record written after, and verify says where. A crash's torn
// line, named by the next write, is no break.
func TestJournalVerifyOlderJournal(t *testing.T) {
	dir := isolate(t)
	path := filepath.Join(dir, "state", "old.jsonl")
	chainJournal(t, path, 4, nil)
	lines := readLines(t, path)
	for i := range lines[:4] {
		lines[i] = resum(chainMembers.ReplaceAll(lines[i], nil)) // as an a2atop before the chain wrote them
	}
	writeLines(t, path, lines)
	if code, out := verify(t, path); code != exitOK || !strings.Contains(out, "no chained record yet") {
		t.Fatalf("an older journal: %d %s", code, out)
	}
	chainJournal(t, path, 3, nil)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString(`{"v":2,"type":"state","id":"","at":"2026-`) // a crash in a write
	f.Close()
	if code, out := verify(t, path); code != exitFailed || !strings.Contains(out, "line 8 (cut)") {
		t.Fatalf("a torn last line: %d %s", code, out)
	}
	chainJournal(t, path, 1, nil) // names the torn line and links past it
	code, out := verify(t, path)
	if code != exitOK || !strings.Contains(out, "4 record(s) before line 5 were written before the chain") ||
		!strings.Contains(out, "chain verified: 5 records from line 5") {
		t.Fatalf("the older journal, written on: %d %s", code, out)
	}
}

// TestJournalExportCarriesTheChain: each exported record names the
// journal lines it rests on, with their seq and the SHA-256 of their
// bytes, as an auditor recomputes them from the file with no a2atop (the
// hash of each line is the next line's prev); the CSV carries the same.
func TestJournalExportCarriesTheChain(t *testing.T) {
	dir := isolate(t)
	journal := filepath.Join(dir, "state", "a2atop", "journal.jsonl")
	cfg := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfg, []byte("journal_path = \""+journal+"\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	chainJournal(t, journal, 3, nil)
	code, out, errOut := runCmd(context.Background(), "journal", "--config", cfg, "--format", "jsonl")
	if code != exitOK {
		t.Fatalf("export: %d %s%s", code, out, errOut)
	}
	lines := readLines(t, journal)
	var recs []exportRecord
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var r exportRecord
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	if len(recs) != 3 {
		t.Fatalf("%d records exported:\n%s", len(recs), out)
	}
	for i, r := range recs {
		if len(r.JournalLines) != 1 {
			t.Fatalf("record %d names lines %+v", i, r.JournalLines)
		}
		jl := r.JournalLines[0]
		raw := bytes.TrimSuffix(lines[jl.Line-1], []byte("\n"))
		sum := sha256.Sum256(raw)
		if jl.SHA256 != "sha256:"+hex.EncodeToString(sum[:]) || jl.Seq != i+1 {
			t.Errorf("record %d: %+v, the file's line %d hashes to %x", i, jl, jl.Line, sum)
		}
		if i > 0 && !bytes.Contains(raw, []byte(`"prev":"`+recs[i-1].JournalLines[0].SHA256+`"`)) {
			t.Errorf("line %d does not name the hash of line %d as its prev", jl.Line, jl.Line-1)
		}
	}
	if code, out := verify(t, "--config", cfg); code != exitOK || !strings.Contains(out, "journal "+journal+": chain verified: 3 records") {
		t.Errorf("verify of the configured journal: %d %s", code, out)
	}
	_, csvOut, _ := runCmd(context.Background(), "journal", "--config", cfg, "--format", "csv")
	if !strings.Contains(csvOut, ",journal_lines\n") || !strings.Contains(csvOut, ",2:2:"+recs[1].JournalLines[0].SHA256+"\n") {
		t.Errorf("the CSV export has no journal_lines:\n%s", csvOut)
	}
}

// TestJournalVerifyCutAtALineEnd: a signed journal cut short at the end
// of a line still links from its first line to its last; the checkpoint
// the hub keeps beside it (JOURNAL.head) names what is missing.
func TestJournalVerifyCutAtALineEnd(t *testing.T) {
	dir := isolate(t)
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	path := filepath.Join(dir, "state", "hub.jsonl")
	chainJournal(t, path, 12, key) // 15 lines, the last a checkpoint
	if code, out := verify(t, path); code != exitOK {
		t.Fatalf("the signed journal: %d %s", code, out)
	}
	lines := readLines(t, path)
	writeLines(t, path, lines[:12])
	code, out := verify(t, path)
	if code != exitFailed || !strings.Contains(out, "\nline 13 (removed): the journal ends at line 12 (seq 12), but it was signed up to seq 15 at ") {
		t.Fatalf("a journal cut at a line's end: %d %s", code, out)
	}
}

// TestJournalVerifyACopyAnywhere: an auditor verifies a copy of the
// journal kept in a directory others may write (as /tmp), which a2atop
// would never keep its own state in; a copy is read as it is.
func TestJournalVerifyACopyAnywhere(t *testing.T) {
	dir := isolate(t)
	path := filepath.Join(dir, "state", "journal.jsonl")
	chainJournal(t, path, 3, nil)
	shared := filepath.Join(dir, "shared")
	if err := os.Mkdir(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(shared, "copy.jsonl")
	writeLines(t, cp, readLines(t, path))
	if code, out := verify(t, cp); code != exitOK || !strings.Contains(out, "chain verified: 3 records") {
		t.Fatalf("a copy in a shared directory: %d %s", code, out)
	}
}

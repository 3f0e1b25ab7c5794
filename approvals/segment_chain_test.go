package approvals

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// noteState writes one observation through svc, as the fleet does.
func noteState(t *testing.T, svc *Service, task string) {
	t.Helper()
	if err := svc.write(record{Type: recState, Agent: "deployer", Task: a2a.TaskID(task), From: a2a.TaskStateWorking,
		To: a2a.TaskStateCompleted, Source: "fleet"}); err != nil {
		t.Fatal(err)
	}
}

// chainHolds checks that the whole journal at path, every segment in
// order, verifies without a break, and so does the chain as each of the
// Services read it (a writer, a follower, a process that opened the open
// segment alone, a reader of all).
func chainHolds(t *testing.T, path string, svcs ...*Service) ChainStatus {
	t.Helper()
	files, err := SegmentFiles(path)
	if err != nil {
		t.Fatal(err)
	}
	c, err := VerifyJournal(nil, files...)
	if err != nil {
		t.Fatal(err)
	}
	if c.Broken() || c.Start == 0 {
		t.Fatalf("the journal's %d segments do not verify: start %d, breaks %+v", len(files), c.Start, c.Breaks)
	}
	lines := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines += bytes.Count(b, []byte("\n"))
	}
	if c.Records != lines {
		t.Fatalf("verify walked %d records in %d segments, which hold %d lines", c.Records, len(files), lines)
	}
	for i, svc := range svcs {
		if _, err := svc.Refresh(); err != nil {
			t.Fatal(err)
		}
		if sc := svc.Chain(); sc.Broken() || sc.Start == 0 {
			t.Fatalf("Service %d (of %d) reads the chain as broken: start %d, breaks %+v", i, len(svcs), sc.Start, sc.Breaks)
		}
	}
	return c
}

// TestChainContinuesAcrossSegments: a journal that rotated at every
// write, by two processes, one of which rotates and one of which only
// follows, is one chain: verify walks every segment in order without a
// break (each new segment's header and restated records link to the
// last line of the one before), and so does every Service: the writer,
// the follower, one that opens the open segment alone (seeded from the
// previous segment's last line) and one that reads them all.
func TestChainContinuesAcrossSegments(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "journal.jsonl")
	a := openService(t, Options{JournalPath: path, Segment: SegmentPolicy{Size: 1}})
	b := openService(t, Options{JournalPath: path})
	noteState(t, a, "a1") // the journal's first segment closes at its first write
	noteState(t, a, "a2")
	noteState(t, b, "b1")
	noteState(t, a, "a3")
	if seqs, err := archives(path); err != nil || len(seqs) < 3 {
		t.Fatalf("closed segments %v %v, want 3 or more", seqs, err)
	}
	alone := openService(t, Options{JournalPath: path, ReadOnly: true})
	all := openService(t, Options{JournalPath: path, ReadOnly: true, Memory: MemoryAll})
	c := chainHolds(t, path, a, b, alone, all)
	if sc := alone.Chain(); sc.HeadSeq != c.HeadSeq || sc.Head != c.Head {
		t.Fatalf("the open segment alone reads head %s (seq %d), verify %s (seq %d)", sc.Head, sc.HeadSeq, c.Head, c.HeadSeq)
	}
	w := openService(t, Options{JournalPath: path, Segment: SegmentPolicy{Size: 1}}) // a writer that opened the open segment alone
	noteState(t, w, "c1")
	chainHolds(t, path, a, b, w)
}

// TestChainBreakInAnOldSegmentIsNamed: a journal that rotated twice;
// a byte changed in the first (closed) segment, then a line removed from
// the second: verify names each at its file and its line there.
func TestChainBreakInAnOldSegmentIsNamed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "journal.jsonl")
	a := openService(t, Options{JournalPath: path, Segment: SegmentPolicy{Size: 600}})
	for i := range 12 {
		noteState(t, a, "task-"+string(rune('a'+i)))
	}
	files, err := SegmentFiles(path)
	if err != nil || len(files) < 3 {
		t.Fatalf("segments %v %v, want 3 or more", files, err)
	}
	chainHolds(t, path, a)
	edit := func(file string, change func([][]byte) [][]byte) {
		t.Helper()
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		ls := bytes.SplitAfter(b, []byte("\n"))
		if err := os.Chmod(file, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, bytes.Join(change(ls), nil), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	edit(files[0], func(ls [][]byte) [][]byte {
		ls[1] = bytes.Replace(ls[1], []byte(`"task-`), []byte(`"tasK-`), 1)
		return ls
	})
	edit(files[1], func(ls [][]byte) [][]byte { return append(ls[:1:1], ls[2:]...) })
	c, err := VerifyJournal(nil, files...)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Breaks) != 2 {
		t.Fatalf("breaks %+v, want 2", c.Breaks)
	}
	if b := c.Breaks[0]; b.Path != files[0] || b.Line != 2 || b.Kind != BreakEdited {
		t.Errorf("first break %+v, want %s line 2 edited", b, files[0])
	}
	if b := c.Breaks[1]; b.Path != files[1] || b.Line != 2 || b.Kind != BreakRemoved {
		t.Errorf("second break %+v, want %s line 2 removed", b, files[1])
	}
	for _, b := range c.Breaks {
		if !strings.Contains(b.Sentence(), "line 2") {
			t.Errorf("break words %q do not name line 2", b.Sentence())
		}
	}
}

// TestVotesSurviveARotation: under a two-person policy, alice's vote is
// journaled by a process that rotates at every write; the journal then
// rotates once more. bob opens the journal afterwards (a new process: it
// reads the open segment alone) and still sees alice's vote: his vote
// completes the approval, which is sent once, naming both. The chain
// holds across the segments throughout.
func TestVotesSurviveARotation(t *testing.T) {
	fx := newVoteFixture(t, fourEyes)
	openRotating := func(approver string) *Service {
		return openService(t, Options{JournalPath: fx.path, Sender: fx.snd, Approver: approver, SendTimeout: 5 * time.Second,
			Agents: []Agent{{Name: "agent", URL: fx.ag.URL}}, Policies: map[string]Policy{"agent": fx.pol}, Now: fx.clock.Now,
			Segment: SegmentPolicy{Size: 1}})
	}
	alice := openRotating("alice")
	id := fx.ag.Start("deploy production")
	mt := fx.asking(t, id, 0)
	if o := vote(t, alice, mt, KindApprove, "rollout window ok"); o.Result != ResultVoted {
		t.Fatalf("alice's vote: %s (%v)", o.Words(), o.Err)
	}
	noteState(t, openRotating("carol"), "elsewhere") // a second rotation, by another process
	if seqs, _ := archives(fx.path); len(seqs) < 2 {
		t.Fatalf("closed segments %v, want 2 or more", seqs)
	}
	if recs := records(t, fx.path); len(recs) == 0 || recs[0].Type != recSegment {
		t.Fatalf("the journal's path does not begin a segment: %+v", recs)
	}

	bob := fx.open(t, "bob") // reads the open segment alone
	if row := bob.VotesOn(bob.ItemFor(mt)).Row(); !strings.HasPrefix(row, "1 of 2 · alice ") {
		t.Fatalf("after the rotations bob's inbox row says %q, want alice's vote", row)
	}
	o := vote(t, bob, mt, KindApprove, "diff checked")
	if o.Result != ResultAccepted || o.Votes == nil || o.Votes.Names() != "alice, bob" {
		t.Fatalf("bob's vote: %s (%v), votes %+v", o.Words(), o.Err, o.Votes)
	}
	if got := approversSent(t, fx.ag, id); len(got) != 1 || strings.Join(got[0], ",") != "alice,bob" {
		t.Fatalf("the agent received %v, want one message naming alice and bob", got)
	}
	if _, err := alice.Refresh(); err != nil {
		t.Fatal(err)
	}
	if d, err := alice.Prepare(alice.ItemFor(mt), Input{Kind: KindApprove, Reason: "again"}); err == nil {
		if o := alice.Send(context.Background(), d); o.Result == ResultAccepted || o.Result == ResultVoted {
			t.Fatalf("a vote after the approval was sent: %s", o.Words())
		}
	}
	if n := fx.ag.OnTask(id); n != 1 {
		t.Fatalf("the agent received %d messages on the task, want 1", n)
	}
	all := openService(t, Options{JournalPath: fx.path, ReadOnly: true, Memory: MemoryAll, Agents: []Agent{{Name: "agent", URL: fx.ag.URL}},
		Policies: map[string]Policy{"agent": fx.pol}})
	sent := 0
	for _, e := range all.Journal() {
		if e.MessageID != "" && e.TaskID == id {
			sent++
			if len(e.Votes) != 2 {
				t.Errorf("the whole journal's approval holds votes %+v, want alice's and bob's", e.Votes)
			}
		}
	}
	if sent != 1 {
		t.Fatalf("the whole journal holds %d decisions on the task, want 1", sent)
	}
	chainHolds(t, fx.path, alice, bob, all)
}

// TestServiceNamesABreakAtItsFileLine: line numbers run on across
// segments, so the chain's walk in a Service (the hub's refusal, the
// journal view) names a break by the file that holds it and its line
// there, as verify does.
func TestServiceNamesABreakAtItsFileLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "journal.jsonl")
	w := openService(t, Options{JournalPath: path, Segment: SegmentPolicy{Size: 600}})
	for i := range 8 {
		noteState(t, w, "task-"+string(rune('a'+i)))
	}
	w.Close()
	noteState(t, openService(t, Options{JournalPath: path}), "last") // the open segment: header, one or two records, this
	lines := bytes.SplitAfter(mustRead(t, path), []byte("\n"))
	n := len(lines) - 1 // the last line, "last"
	lines[n-1] = bytes.Replace(lines[n-1], []byte(`"last"`), []byte(`"lasT"`), 1)
	if err := os.WriteFile(path, bytes.Join(lines, nil), 0o600); err != nil {
		t.Fatal(err)
	}
	c := openService(t, Options{JournalPath: path, ReadOnly: true}).Chain()
	if len(c.Breaks) != 1 || c.Breaks[0].Path != path || c.Breaks[0].Line != n || !strings.HasPrefix(c.Breaks[0].Sentence(), fmt.Sprintf("line %d ", n)) {
		t.Fatalf("breaks %+v, want one at %s line %d", c.Breaks, path, n)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// rotateCheckpoints are the child's checkpoints in
// TestSignedRotationKilledAtEachStep: a fixed key, one after every record.
func rotateCheckpoints() *Checkpoints {
	if os.Getenv(envRotSign) != "1" {
		return nil
	}
	return &Checkpoints{Key: rotateKey(), Every: 1}
}

func rotateKey() ed25519.PrivateKey {
	return ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, ed25519.SeedSize))
}

// TestSignedRotationKilledAtEachStep is TestRotationKilledAtEachStep
// with a child that signs checkpoints as a hub does (one after every
// record, one after each new segment's restated records, the head file
// kept): killed after any step, the journal still verifies across its
// segments, the head file names a checkpoint the journal holds, and no
// decision is lost, sent twice or reopened.
func TestSignedRotationKilledAtEachStep(t *testing.T) {
	for at := 1; at <= 2; at++ {
		for step := stepWritten; step <= stepSealed; step++ {
			t.Run(fmt.Sprintf("rotation%d/step%d", at, step), func(t *testing.T) {
				path := rotationKilled(t, at, step, envRotSign+"=1")
				files, err := SegmentFiles(path)
				if err != nil {
					t.Fatal(err)
				}
				c, err := VerifyJournal(rotateKey().Public().(ed25519.PublicKey), files...)
				if err != nil {
					t.Fatal(err)
				}
				if c.Broken() || c.Checkpoints == 0 {
					t.Fatalf("verified with the child's key: %d checkpoints, breaks %+v", c.Checkpoints, c.Breaks)
				}
			})
		}
	}
}

// TestServiceNamesABreakAtTheSegmentBefore: the last line of a closed
// segment edited (its checksum made right again) or damaged: a Service
// that opens the open segment alone — a hub at its start — finds it when
// it checks the new segment's first line against it, and names it in the
// closed segment's file, at its last line.
func TestServiceNamesABreakAtTheSegmentBefore(t *testing.T) {
	for _, how := range []string{"edited", "damaged"} {
		t.Run(how, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state", "journal.jsonl")
			w := openService(t, Options{JournalPath: path, Segment: SegmentPolicy{Size: 600}})
			for i := range 6 {
				noteState(t, w, "task-"+string(rune('a'+i)))
			}
			w.Close()
			seqs, _ := archives(path)
			closed := archivePath(path, seqs[len(seqs)-1])
			lines := bytes.SplitAfter(mustRead(t, closed), []byte("\n"))
			n := len(lines) - 1
			last := parseLine(n, bytes.TrimSuffix(lines[n-1], []byte("\n")), false)
			if last.err != nil {
				t.Fatal(last.err)
			}
			switch how {
			case "edited": // a careful forger: the record changed, its checksum recomputed
				last.rec.Task += "x"
				b, err := encodeRecord(last.rec)
				if err != nil {
					t.Fatal(err)
				}
				lines[n-1] = append(b, '\n')
			case "damaged":
				lines[n-1] = bytes.Replace(lines[n-1], []byte(`"task-`), []byte(`"tasK-`), 1)
			}
			if err := os.Chmod(closed, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(closed, bytes.Join(lines, nil), 0o600); err != nil {
				t.Fatal(err)
			}
			c := openService(t, Options{JournalPath: path, ReadOnly: true}).Chain()
			if len(c.Breaks) != 1 || c.Breaks[0].Path != closed || c.Breaks[0].Line != n || c.Breaks[0].Kind != BreakEdited {
				t.Fatalf("breaks %+v, want one at %s line %d, edited", c.Breaks, closed, n)
			}
		})
	}
}

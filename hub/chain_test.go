package hub_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/a2aclient"
	"a2atop/approvals"
	"a2atop/hub"
	"a2atop/internal/agenttest"
	"a2atop/model"
)

// TestHubCheckpointsVerifyWithTheKeyInMe: the hub signs its journal's
// chain every Every records and when it stops; the key a dashboard reads
// in GET /v1/me (over real HTTP) verifies every checkpoint of the file,
// and the attached dashboard sees the chain verified as the feed
// delivers the hub's lines.
func TestHubCheckpointsVerifyWithTheKeyInMe(t *testing.T) {
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	fx := newFixture(t, func(o *hub.Options) { o.Journal.Checkpoints = &approvals.Checkpoints{Key: key, Every: 3} })
	alice := fx.attach("alice")
	if alice.me.JournalKey == "" {
		t.Fatal("GET /v1/me names no journal key")
	}
	pub, err := approvals.ParseKeyText(alice.me.JournalKey)
	if err != nil {
		t.Fatal(err)
	}
	id := fx.ag.Start("ask")
	alice.waitFor("the question", func(f *model.Fleet) bool { return alice.inInbox(f, id) })
	to := []a2a.TaskState{a2a.TaskStateSubmitted, a2a.TaskStateWorking, a2a.TaskStateCompleted, a2a.TaskStateFailed,
		a2a.TaskStateCanceled, a2a.TaskStateRejected, a2a.TaskStateAuthRequired} // one note each: the hub writes a repeat once
	for i, st := range to {
		if err := alice.svc.NoteLeft("agent", id, a2a.TaskStateInputRequired, st, fmt.Sprintf("note %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	alice.waitFor("the hub's lines, checked", func(*model.Fleet) bool {
		c := alice.svc.Chain()
		return c.Records >= 9 && c.Checkpoints >= 2
	})
	if c := alice.svc.Chain(); c.Broken() {
		t.Errorf("the dashboard's view of the hub's chain is broken: %+v", c.Breaks)
	}
	fx.stop()
	c, err := approvals.VerifyJournal(pub, fx.journal)
	if err != nil {
		t.Fatal(err)
	}
	// 7 notes, a checkpoint after every 3 (2), one at shutdown
	if c.Broken() || !c.Trusted || c.Checkpoints != 3 || c.Unsigned != 0 || c.Records != 10 {
		t.Fatalf("the hub's journal, verified with the key of /v1/me: %+v", c)
	}
	other, _, _ := ed25519.GenerateKey(rand.Reader)
	if c, _ := approvals.VerifyJournal(other, fx.journal); c.First(true) == nil || c.First(true).Kind != approvals.BreakSignature {
		t.Fatalf("another key verifies the hub's checkpoints: %+v", c)
	}
}

// TestHubRefusesABrokenChain: a hub does not start on a journal one of
// whose records was removed, and says where and what to do; told
// AcceptBrokenChain it starts and the journal records that, so that the
// next start goes ahead (and verify still shows the break, accepted).
func TestHubRefusesABrokenChain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	svc, err := approvals.Open(approvals.Options{JournalPath: path})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if err := svc.NoteLeft("agent", a2a.TaskID(fmt.Sprint("t", i)), a2a.TaskStateInputRequired, a2a.TaskStateWorking, "n"); err != nil {
			t.Fatal(err)
		}
	}
	svc.Close()
	b, _ := os.ReadFile(path)
	lines := bytes.SplitAfter(b, []byte("\n"))
	if err := os.WriteFile(path, bytes.Join(append(lines[:2:2], lines[3:]...), nil), 0o600); err != nil {
		t.Fatal(err)
	}
	ag := agenttest.StartAgent(t)
	open := func(accept bool) (*hub.Hub, error) {
		return hub.Open(hub.Options{Watchers: a2aclient.New([]a2aclient.AgentOptions{{Name: "agent", URL: ag.URL}}, a2aclient.Options{}), Agents: []hub.Agent{{Name: "agent", URL: ag.URL}},
			Operators: []hub.Operator{{Name: "alice", TokenHash: hub.HashToken(tokens["alice"]), Roles: roles["alice"]}},
			Journal:   approvals.Options{JournalPath: path}, AcceptBrokenChain: accept})
	}
	_, err = open(false)
	if !errors.Is(err, hub.ErrBrokenChain) || !strings.Contains(err.Error(), "line 3 (removed)") || !strings.Contains(err.Error(), "--accept-broken-chain") {
		t.Fatalf("a hub on a broken chain: %v", err)
	}
	h, err := open(true)
	if err != nil {
		t.Fatal(err)
	}
	h.Close()
	h, err = open(false)
	if err != nil {
		t.Fatalf("the hub after the break was accepted: %v", err)
	}
	h.Close()
	c, err := approvals.VerifyJournal(nil, path)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Breaks) != 1 || !c.Breaks[0].Accepted() || c.Breaks[0].AcceptedBy != "a2atop serve" {
		t.Fatalf("verify after the acceptance: %+v", c)
	}
}

// TestHubStartsOnACrashsTornLine: a journal whose last line a crash cut
// (no newline) is no refusal: the hub starts, and its first write names
// the torn line and links past it, so the chain verifies whole.
func TestHubStartsOnACrashsTornLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	svc, err := approvals.Open(approvals.Options{JournalPath: path})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.NoteLeft("agent", "t0", a2a.TaskStateInputRequired, a2a.TaskStateWorking, "n"); err != nil {
		t.Fatal(err)
	}
	svc.Close()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString(`{"v":2,"type":"state","at":"2026-`)
	f.Close()
	ag := agenttest.StartAgent(t)
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	h, err := hub.Open(hub.Options{Watchers: a2aclient.New([]a2aclient.AgentOptions{{Name: "agent", URL: ag.URL}}, a2aclient.Options{}),
		Agents:    []hub.Agent{{Name: "agent", URL: ag.URL}},
		Operators: []hub.Operator{{Name: "alice", TokenHash: hub.HashToken(tokens["alice"]), Roles: roles["alice"]}},
		Journal:   approvals.Options{JournalPath: path, Checkpoints: &approvals.Checkpoints{Key: key}}})
	if err != nil {
		t.Fatalf("a hub after a crash in a write: %v", err)
	}
	h.Close() // its shutdown checkpoint is its first write
	c, err := approvals.VerifyJournal(key.Public().(ed25519.PublicKey), path)
	if err != nil || c.Broken() || c.Checkpoints != 1 {
		t.Fatalf("the journal after the hub wrote past the torn line: %v %+v", err, c)
	}
}

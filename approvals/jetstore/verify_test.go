package jetstore_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/approvals"
)

// TestVerifySharedWalksTheMigratedChain: a hub's chained and signed file
// journal is migrated into a real JetStream record, and a Service on the
// record appends more (not chained): VerifyShared reads every line in
// the stream's order, walks the migrated lines' chain with the hub's
// key, and counts the record's own lines after it; another key fails
// the migrated checkpoints.
func TestVerifySharedWalksTheMigratedChain(t *testing.T) {
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	file, err := approvals.Open(approvals.Options{JournalPath: path, Checkpoints: &approvals.Checkpoints{Key: key, Every: 2}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if err := file.NoteLeft("agent", a2a.TaskID(fmt.Sprint("old", i)), a2a.TaskStateInputRequired, a2a.TaskStateWorking, "n"); err != nil {
			t.Fatal(err)
		}
	}
	file.Close()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	migrated := strings.Count(string(raw), "\n")
	url := startServer(t, true)
	if _, err := approvals.Migrate(path, journalOn(t, url)); err != nil {
		t.Fatal(err)
	}
	svc, err := approvals.Open(approvals.Options{Shared: journalOn(t, url), Checkpoints: &approvals.Checkpoints{Key: key, Every: 2}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := svc.NoteLeft("agent", a2a.TaskID(fmt.Sprint("new", i)), a2a.TaskStateInputRequired, a2a.TaskStateWorking, "n"); err != nil {
			t.Fatal(err)
		}
	}
	if err := svc.Checkpoint(); err != nil {
		t.Fatalf("a checkpoint on the shared record: %v, want nothing signed and no error", err)
	}
	if c := svc.Chain(); c.Shared == "" || c.Broken() {
		t.Errorf("the Service's chain on the record: %+v, want it said to be the stream's order", c)
	}
	svc.Close()
	v, err := approvals.VerifyShared(key.Public().(ed25519.PublicKey), journalOn(t, url))
	if err != nil {
		t.Fatal(err)
	}
	if v.Lines != migrated+3 || v.Chained != migrated || len(v.Damaged) != 0 {
		t.Fatalf("verified %d lines, chained to %d, damaged %v; want %d lines, %d chained", v.Lines, v.Chained, v.Damaged, migrated+3, migrated)
	}
	if c := v.Chain; c.Broken() || !c.Trusted || c.Checkpoints != 2 || c.Records != migrated {
		t.Fatalf("the migrated chain: %+v", c)
	}
	other, _, _ := ed25519.GenerateKey(rand.Reader)
	v, err = approvals.VerifyShared(other, journalOn(t, url))
	if err != nil {
		t.Fatal(err)
	}
	if b := v.Chain.First(true); b == nil || b.Kind != approvals.BreakSignature {
		t.Fatalf("another key on the migrated checkpoints: %+v", v.Chain)
	}
}

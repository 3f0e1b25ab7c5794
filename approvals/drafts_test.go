package approvals

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDraftsOfTwoDashboardsStay: two dashboards on one state directory
// each keep and drop their own drafts; neither loses the other's. A
// drafts file that does not read back is an error naming it, and the
// next draft kept replaces it.
func TestDraftsOfTwoDashboardsStay(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "journal.jsonl")
	open := func() *Service {
		s, err := Open(Options{JournalPath: path, Approver: "ops@test"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	a, b := open(), open()
	if err := a.KeepDraft(Draft{Agent: "agent", TaskID: "t1", Prompt: "p", Text: "main"}); err != nil {
		t.Fatal(err)
	}
	if err := b.KeepDraft(Draft{Agent: "agent", TaskID: "t2", Prompt: "p", JSON: `{"x":1}`}); err != nil {
		t.Fatal(err)
	}
	if err := a.KeepDraft(Draft{Agent: "agent", TaskID: "t1", Prompt: "p", Text: "release"}); err != nil {
		t.Fatal(err)
	}
	ds, err := open().Drafts()
	if err != nil || len(ds) != 2 || ds[0].Text != "" && ds[0].Text != "release" {
		t.Fatalf("drafts = %+v (%v), want t1 \"release\" and t2", ds, err)
	}
	if err := b.DropDraft("agent", "t2"); err != nil {
		t.Fatal(err)
	}
	if ds, _ := a.Drafts(); len(ds) != 1 || ds[0].TaskID != "t1" || ds[0].Text != "release" {
		t.Fatalf("after b dropped its own: %+v", ds)
	}
	if fi, err := os.Stat(path + ".drafts"); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the drafts file: %v %v", fi, err)
	}
	if err := os.WriteFile(path+".drafts", []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Drafts(); err == nil || !strings.Contains(err.Error(), path+".drafts") {
		t.Fatalf("a damaged drafts file: %v, want an error naming it", err)
	}
	if err := a.KeepDraft(Draft{Agent: "agent", TaskID: "t3", Prompt: "p", Text: "x"}); err != nil {
		t.Fatal(err)
	}
	if ds, err := a.Drafts(); err != nil || len(ds) != 1 {
		t.Fatalf("after keeping over a damaged file: %+v (%v)", ds, err)
	}
}

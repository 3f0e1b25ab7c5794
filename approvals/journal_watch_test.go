package approvals

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestWatchSeesAnotherProcessWrite: a dashboard's Service watches its
// journal file; another process (a real one: this test binary run as
// TestDecideChild) answers a prompt through the same journal. The watch
// fires, with no clock involved, and the Refresh it calls for finds the
// other process's decision. After stop the channel is closed.
func TestWatchSeesAnotherProcessWrite(t *testing.T) {
	fx := newFixture(t)
	changes, stop, ok := fx.svc.Watch()
	if !ok {
		t.Fatal("Watch: no file-change notification for a journal file on Linux")
	}
	mt := fx.start(t, "ask")
	c := startChild(t, fx, mt.Key.ID, "reply", "bob@test")
	c.Say(t, "go")
	if r := c.result(t); r.Result != ResultAccepted {
		t.Fatalf("the other process's reply: %+v", r)
	}
	for {
		select {
		case <-changes:
		case <-time.After(10 * time.Second):
			t.Fatal("after 10 s: no notification of the other process's write")
		}
		r, err := fx.svc.Refresh()
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Decisions) > 0 {
			if d := r.Decisions[0]; d.TaskID != mt.Key.ID || d.Approver != "bob@test" || !d.Elsewhere {
				t.Fatalf("refreshed decision %+v, want bob's on %s from elsewhere", d, mt.Key.ID)
			}
			break
		}
	}
	stop()
	for range changes { // closed once stopped
	}
}

// TestWatchSeesTheJournalCreated: a read-only dashboard opened before the
// first decision (no journal file yet) watches for the file; a writer
// creates it, and each of its later writes fires the watch too (the watch
// moved from the directory to the file). A write of another file beside
// the journal (the log) is not the journal's.
func TestWatchSeesTheJournalCreated(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "journal.jsonl")
	ro, err := Open(Options{JournalPath: path, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	changes, stop, ok := ro.Watch()
	if !ok {
		t.Fatal("Watch: no file-change notification for a journal not created yet")
	}
	defer stop()
	wait := func(what string) {
		t.Helper()
		select {
		case <-changes:
		case <-time.After(10 * time.Second):
			t.Fatalf("after 10 s: no notification of %s", what)
		}
	}
	writer, err := Open(Options{JournalPath: path})
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	wait("the journal's creation")
	for i := range 3 {
		if err := os.WriteFile(filepath.Join(dir, "a2atop.log"), []byte("a log line\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.WriteString(`{"type":"note","n":` + strconv.Itoa(i) + "}\n")
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		wait("write " + strconv.Itoa(i))
		drain(changes)
	}
}

// drain takes a value waiting on ch, if any.
func drain(ch <-chan struct{}) {
	select {
	case <-ch:
	default:
	}
}

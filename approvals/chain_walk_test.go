package approvals

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// chainedLines writes n records with a real Service and returns the
// journal's lines as the Service reads them back.
func chainedLines(t testing.TB, n int) []line {
	t.Helper()
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	s, err := Open(Options{JournalPath: path})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := s.NoteLeft("a", a2a.TaskID(fmt.Sprint("t", i)), a2a.TaskStateInputRequired, a2a.TaskStateWorking, "n"); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []line
	for i, raw := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
		out = append(out, parseLine(i+1, raw, false))
	}
	return out
}

// TestChainWalkPartial: the lines of a hub's journal that its feed
// sends an operator who may watch some agents only have gaps; a
// dashboard's walk checks each run from its first line and finds no
// break where lines were not sent, while the same gap in a file is a
// break. A change inside a run is still found.
func TestChainWalkPartial(t *testing.T) {
	lines := chainedLines(t, 10)
	sent := append(append([]line(nil), lines[3:5]...), lines[7:]...) // from line 4, without lines 6 and 7
	walk := func(partial bool, ls []line) ChainStatus {
		w := newChainWalk("hub", nil)
		w.partial = partial
		for _, l := range ls {
			w.add(chainLineOf(l))
		}
		return w.status()
	}
	if c := walk(true, sent); c.Broken() || c.Records != 5 || c.Start != 4 {
		t.Errorf("the lines a feed sent: %+v", c)
	}
	if c := walk(false, sent); !c.Broken() {
		t.Errorf("the same lines read from a file: %+v", c)
	}
	sent[3].raw = bytes.Replace(sent[3].raw, []byte(`"t8"`), []byte(`"t9"`), 1)
	if c := walk(true, sent); c.First(true) == nil || c.First(true).Line != 9 {
		t.Errorf("a changed line in a run: %+v", c)
	}
}

// TestChainSeesWhatIsAppendedLater: a Service that is open (a dashboard)
// checks the lines other processes append as it follows the journal: a
// record another a2atop writes links on, a line added by hand is named
// at its line.
func TestChainSeesWhatIsAppendedLater(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	dash, err := Open(Options{JournalPath: path, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	other, err := Open(Options{JournalPath: path})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	for i := range 3 {
		if err := other.NoteLeft("a", a2a.TaskID(fmt.Sprint("t", i)), a2a.TaskStateInputRequired, a2a.TaskStateWorking, "n"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := dash.Refresh(); err != nil {
		t.Fatal(err)
	}
	if c := dash.Chain(); c.Broken() || c.Records != 3 {
		t.Fatalf("after another process wrote: %+v", c)
	}
	b, _ := os.ReadFile(path)
	last := bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))[2]
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.Write(append(bytes.Clone(last), '\n')) // a copy of the last record, by hand
	f.Close()
	if _, err := dash.Refresh(); err != nil {
		t.Fatal(err)
	}
	if b := dash.Chain().First(true); b == nil || b.Line != 4 || b.Kind != BreakInserted {
		t.Fatalf("a line added by hand: %+v", dash.Chain())
	}
	dash.Close()
}

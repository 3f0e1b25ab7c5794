package approvals

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzVerifyCopy: whatever bytes a journal file holds, a walk ends
// without a panic, every break it names is at a line of the file (or
// the one after its last, for what is missing at the end), and a file
// with a break is never reported clean.
func FuzzVerifyCopy(f *testing.F) {
	var raw [][]byte
	for _, l := range chainedLines(f, 6) {
		raw = append(raw, l.raw)
	}
	clean := append(bytes.Join(raw, []byte("\n")), '\n')
	f.Add(clean)
	f.Add(bytes.Join([][]byte{raw[0], raw[2], raw[1], raw[3]}, []byte("\n")))
	f.Add(bytes.Join([][]byte{raw[0], raw[1], raw[1], raw[2], {}, raw[4]}, []byte("\n")))
	f.Add(clean[:len(clean)/2])
	f.Add([]byte("{}\n\n{\"v\":2}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(t.TempDir(), "j.jsonl")
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := VerifyCopy(nil, path)
		if err != nil {
			t.Fatal(err)
		}
		for _, br := range c.Breaks {
			if br.Line < 1 || br.Line > c.Lines+1 {
				t.Fatalf("a break at line %d of a file of %d lines: %+v", br.Line, c.Lines, br)
			}
		}
		if c.Records > c.Lines || c.Start > c.Lines {
			t.Fatalf("more records than lines: %+v", c)
		}
	})
}

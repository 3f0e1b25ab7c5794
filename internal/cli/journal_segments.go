package cli

import (
	"fmt"
	"io"
	"path/filepath"

	"a2atop/approvals"
	"a2atop/internal/sanitize"
)

// printSegments says, for a journal that was rotated (journal_segment),
// which files `journal check` read: every closed segment and the open one.
func printSegments(w io.Writer, svc *approvals.Service) {
	files := svc.Segments()
	if len(files) < 2 {
		return
	}
	fmt.Fprintf(w, "journal %s: read %d segments, %s to %s\n", sanitize.Line(svc.Path(), 300), len(files),
		sanitize.Line(filepath.Base(files[0]), 100), sanitize.Line(filepath.Base(files[len(files)-1]), 100))
}

// printLineIn names, for a line of a rotated journal, the file that
// holds it and its number there: line numbers run on across segments.
func printLineIn(w io.Writer, d approvals.Damage) {
	if d.FileLine == 0 || (d.File == d.Path && d.FileLine == d.Line) {
		return
	}
	fmt.Fprintf(w, "  in: %s line %d\n", sanitize.Line(d.File, 300), d.FileLine)
}

package inbox

import (
	"fmt"
	"math"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/approvals"
	"a2atop/internal/sanitize"
	"a2atop/ui/theme"
)

// maxPartText bounds one part's text as shown (the detail view has the rest).
const maxPartText = 8 << 10

// renderParts draws every part of a message: text as text, data as
// pretty JSON, files by name, media type and URL (never fetched). All of
// it is agent text and goes through sanitize.
func renderParts(th *theme.Theme, parts []*a2a.Part, w int) string {
	var b strings.Builder
	for _, p := range parts {
		if p == nil {
			continue
		}
		switch c := p.Content.(type) {
		case a2a.Text:
			b.WriteString(wrapText(sanitize.Text(string(c), maxPartText), w) + "\n")
		case a2a.Data:
			b.WriteString(th.Label.Render("data:") + "\n")
			b.WriteString(indent(sanitize.Text(approvals.PrettyJSON(c.Value), maxPartText), "  ", w) + "\n")
		case a2a.URL:
			b.WriteString(th.Label.Render("file: ") + sanitize.Line(fileLabel(p, string(c)), max(w-6, 1)) + "\n")
		case a2a.Raw:
			b.WriteString(th.Label.Render("file: ") + sanitize.Line(fileLabel(p, fmt.Sprintf("%d bytes inline", len(c))), max(w-6, 1)) + "\n")
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func fileLabel(p *a2a.Part, where string) string {
	name := p.Filename
	if name == "" {
		name = "(unnamed)"
	}
	if p.MediaType != "" {
		name += " (" + p.MediaType + ")"
	}
	return name + " " + where
}

// wrapText breaks long lines at w cells (on rune boundaries, words kept
// where possible).
func wrapText(s string, w int) string {
	if w <= 0 {
		return ""
	}
	var out []string
	for _, line := range strings.Split(s, "\n") {
		for len([]rune(line)) > w {
			r := []rune(line)
			cut := w
			if i := strings.LastIndex(string(r[:w]), " "); i > w/2 {
				cut = len([]rune(string(r[:w])[:i]))
			}
			out = append(out, strings.TrimRight(string(r[:cut]), " "))
			line = strings.TrimLeft(string(r[cut:]), " ")
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

func indent(s, pre string, w int) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = sanitize.Line(pre+l, max(w, 1))
	}
	return strings.Join(lines, "\n")
}

// line is sanitize.Line with no cut, for text we cut by layout later.
func line(s string) string { return sanitize.Line(s, math.MaxInt) }

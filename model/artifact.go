package model

import (
	"unicode/utf8"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// capArtifacts cuts the artifacts of s to MaxArtifactBytes and returns the
// bytes kept. Artifacts past the cap keep their id and name, not parts.
func (f *Fleet) capArtifacts(t *Task, s *a2a.Task) int {
	budget := f.opts.MaxArtifactBytes
	total := 0
	t.artFull = false
	for _, a := range s.Artifacts {
		if a == nil {
			continue
		}
		rem := -1
		if budget >= 0 {
			rem = budget - total
		}
		parts, n, cut := fitParts(a.Parts, rem)
		a.Parts = parts
		total += n
		if cut {
			t.Truncated = true
			t.artFull = true
		}
	}
	return total
}

// mergeArtifact applies an artifact update to t's snapshot: append adds
// parts to the artifact with the same id, otherwise the artifact is
// created or replaced. It reports whether anything changed.
func (f *Fleet) mergeArtifact(t *Task, ae *a2a.TaskArtifactUpdateEvent) bool {
	art := ae.Artifact
	arts := t.Snapshot.Artifacts
	idx := -1
	for i, x := range arts {
		if x != nil && x.ID == art.ID {
			idx = i
			break
		}
	}
	if idx >= 0 && arts[idx] == art {
		return false // the same update again
	}
	if idx >= 0 && !ae.Append {
		t.artBytes -= artifactSize(arts[idx])
	}
	rem := -1
	if f.opts.MaxArtifactBytes >= 0 {
		rem = max(f.opts.MaxArtifactBytes-t.artBytes, 0)
	}
	if ae.Append && t.artFull {
		rem = 0 // once a chunk was cut, later chunks would leave a gap
	}
	parts, n, cut := fitParts(art.Parts, rem)
	t.artBytes += n
	t.artFull = cut || t.artFull && ae.Append
	if cut {
		t.Truncated = true
	}
	switch {
	case idx >= 0 && ae.Append:
		dst := arts[idx]
		dst.Parts = append(dst.Parts, parts...)
	case idx >= 0:
		art.Parts = parts
		arts[idx] = art
	default:
		art.Parts = parts
		t.Snapshot.Artifacts = append(arts, art)
	}
	t.Partial = markPartial(t.Partial, art.ID, ae.Append && !ae.LastChunk)
	return true
}

func markPartial(list []a2a.ArtifactID, id a2a.ArtifactID, partial bool) []a2a.ArtifactID {
	for i, x := range list {
		if x == id {
			if partial {
				return list
			}
			return append(list[:i], list[i+1:]...)
		}
	}
	if partial {
		return append(list, id)
	}
	return list
}

// fitParts returns the parts that fit in budget bytes (negative: no
// limit), the bytes they hold, and whether anything was cut. A text part
// that does not fit is cut at a rune boundary; the rest is dropped.
func fitParts(parts []*a2a.Part, budget int) ([]*a2a.Part, int, bool) {
	total := 0
	for i, p := range parts {
		n := partSize(p)
		if budget < 0 || total+n <= budget {
			total += n
			continue
		}
		kept := parts[:i:i]
		if s, ok := p.Content.(a2a.Text); ok && budget-total > 0 {
			cut := cutUTF8(string(s), budget-total)
			if cut != "" {
				kept = append(kept, &a2a.Part{Content: a2a.Text(cut), MediaType: p.MediaType, Filename: p.Filename})
				total += len(cut)
			}
		}
		return kept, total, true
	}
	return parts, total, false
}

func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func artifactSize(a *a2a.Artifact) int {
	n := 0
	for _, p := range a.Parts {
		n += partSize(p)
	}
	return n
}

// partSize is the content bytes of a part; data parts by estimate.
func partSize(p *a2a.Part) int {
	if p == nil {
		return 0
	}
	switch c := p.Content.(type) {
	case a2a.Text:
		return len(c)
	case a2a.Raw:
		return len(c)
	case a2a.URL:
		return len(c)
	case a2a.Data:
		return dataSize(c.Value, 0)
	}
	return 0
}

// dataSize estimates the JSON size of a decoded value, to depth 32.
func dataSize(v any, depth int) int {
	if depth > 32 {
		return 0
	}
	switch x := v.(type) {
	case string:
		return len(x) + 2
	case map[string]any:
		n := 2
		for k, e := range x {
			n += len(k) + 4 + dataSize(e, depth+1)
		}
		return n
	case []any:
		n := 2
		for _, e := range x {
			n += 1 + dataSize(e, depth+1)
		}
		return n
	case nil, bool:
		return 5
	}
	return 8
}

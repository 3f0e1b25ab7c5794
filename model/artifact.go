package model

import (
	"unicode/utf8"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// What the MaxArtifactBytes cap keeps of a task's artifacts: while the
// task runs, the end of each artifact, so that a log being streamed
// shows its newest lines and every later chunk continues what is held,
// with no gap; once the task has ended, the start (a report reads from
// the top). The budget goes to the artifacts in order.

// capArtifacts cuts the artifacts of s to MaxArtifactBytes and returns the
// bytes kept. Artifacts past the cap keep their id and name, not parts.
func (f *Fleet) capArtifacts(t *Task, s *a2a.Task) int {
	budget := f.opts.MaxArtifactBytes
	ended := ClassOf(s.Status.State) == ClassTerminal
	total := 0
	for _, a := range s.Artifacts {
		if a == nil {
			continue
		}
		rem := -1
		if budget >= 0 {
			rem = budget - total
		}
		var n int
		var cut bool
		if ended {
			a.Parts, n, cut = fitParts(a.Parts, rem)
		} else {
			a.Parts, n, cut = fitTail(a.Parts, rem)
		}
		total += n
		if cut {
			t.Truncated = true
		}
	}
	return total
}

// mergeArtifact applies an artifact update to t's snapshot: append adds
// parts to the artifact with the same id, otherwise the artifact is
// created or replaced. It reports whether anything changed. Only running
// tasks take artifact updates, so the cap keeps the newest content.
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
	switch {
	case idx >= 0 && ae.Append:
		f.appendParts(t, arts[idx], art.Parts)
	default:
		if idx >= 0 {
			t.artBytes -= artifactSize(arts[idx])
		}
		parts, n, cut := fitTail(art.Parts, f.room(t, 0))
		art.Parts = parts
		t.artBytes += n
		if cut {
			t.Truncated = true
		}
		if idx >= 0 {
			arts[idx] = art
		} else {
			t.Snapshot.Artifacts = append(arts, art)
		}
	}
	t.Partial = markPartial(t.Partial, art.ID, ae.Append && !ae.LastChunk)
	return true
}

// room is how many bytes one of t's artifacts may hold in all when it
// holds `held` now; negative means no limit.
func (f *Fleet) room(t *Task, held int) int {
	if f.opts.MaxArtifactBytes < 0 {
		return -1
	}
	return max(f.opts.MaxArtifactBytes-(t.artBytes-held), 0)
}

// appendParts appends a streamed chunk to dst. When the chunk does not
// fit, the oldest parts of dst make room for it, and a chunk larger than
// the room left keeps its end: what is held is always the newest content
// of the artifact, in order. It costs the parts it drops, not the parts
// held.
func (f *Fleet) appendParts(t *Task, dst *a2a.Artifact, parts []*a2a.Part) {
	n := 0
	for _, p := range parts {
		n += partSize(p)
	}
	limit := f.opts.MaxArtifactBytes
	if limit >= 0 && t.artBytes+n > limit {
		t.Truncated = true
		for len(dst.Parts) > 0 && t.artBytes+n > limit {
			t.artBytes -= partSize(dst.Parts[0])
			dst.Parts[0] = nil // so the dropped part can be freed
			dst.Parts = dst.Parts[1:]
		}
		if t.artBytes+n > limit {
			parts, n, _ = fitTail(parts, max(limit-t.artBytes, 0))
		}
	}
	t.artBytes += n
	dst.Parts = append(dst.Parts, parts...)
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

// fitTail is fitParts from the end: the last parts that fit in budget
// bytes, a text part that does not fit keeping its end.
func fitTail(parts []*a2a.Part, budget int) ([]*a2a.Part, int, bool) {
	if budget < 0 {
		n := 0
		for _, p := range parts {
			n += partSize(p)
		}
		return parts, n, false
	}
	total := 0
	for i := len(parts) - 1; i >= 0; i-- {
		p := parts[i]
		n := partSize(p)
		if total+n <= budget {
			total += n
			continue
		}
		var kept []*a2a.Part
		if s, ok := p.Content.(a2a.Text); ok && budget-total > 0 {
			if end := endUTF8(string(s), budget-total); end != "" {
				kept = append(kept, &a2a.Part{Content: a2a.Text(end), MediaType: p.MediaType, Filename: p.Filename})
				total += len(end)
			}
		}
		return append(kept, parts[i+1:]...), total, true
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

// endUTF8 is the last n bytes of s or fewer, starting at a rune.
func endUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
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

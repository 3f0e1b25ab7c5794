package model

import (
	"encoding/json"
	"hash/fnv"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// textOf joins the text parts of a status message on one line. A single
// text part is returned as is (no copy).
func textOf(m *a2a.Message) string {
	if m == nil {
		return ""
	}
	var one string
	n := 0
	for _, p := range m.Parts {
		if p == nil {
			continue
		}
		if s, ok := p.Content.(a2a.Text); ok && s != "" {
			if n == 0 {
				one = string(s)
			}
			n++
		}
	}
	if n <= 1 {
		return one
	}
	var b strings.Builder
	for _, p := range m.Parts {
		if p == nil {
			continue
		}
		if s, ok := p.Content.(a2a.Text); ok && s != "" {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(string(s))
		}
	}
	return b.String()
}

// hintOf returns "F failed / P passed" (or "F failed") when a data part
// of some artifact is an object with a numeric "failed" above zero, as
// the test-runner's summary.json is; "" otherwise.
func hintOf(arts []*a2a.Artifact) string {
	for _, art := range arts {
		if art == nil {
			continue
		}
		for _, p := range art.Parts {
			if p == nil {
				continue
			}
			d, ok := p.Content.(a2a.Data)
			if !ok {
				continue
			}
			obj, ok := d.Value.(map[string]any)
			if !ok {
				continue
			}
			failed, ok := number(obj["failed"])
			if !ok || !(failed > 0) {
				continue
			}
			h := formatCount(failed) + " failed"
			if passed, ok := number(obj["passed"]); ok {
				h += " / " + formatCount(passed) + " passed"
			}
			return h
		}
	}
	return ""
}

// number reads a JSON number however the decoder produced it.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, !math.IsNaN(n) && !math.IsInf(n, 0)
	case float32:
		return float64(n), true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case int32:
		return float64(n), true
	case uint64:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

func formatCount(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'g', 4, 64)
}

// fingerprint summarizes a snapshot as received, so that a sweep that
// returns the same task again is recognized as a repeat. Never 0.
func fingerprint(s *a2a.Task) uint64 {
	h := fnv.New64a()
	var buf [8]byte
	num := func(n int64) {
		for i := range buf {
			buf[i] = byte(n >> (8 * i))
		}
		h.Write(buf[:])
	}
	str := func(s string) {
		num(int64(len(s)))
		h.Write([]byte(s))
	}
	str(string(s.Status.State))
	str(s.ContextID)
	if ts := s.Status.Timestamp; ts != nil {
		num(ts.UnixNano())
	}
	if m := s.Status.Message; m != nil {
		str(m.ID)
		num(int64(len(m.Parts)))
	}
	num(int64(len(s.History)))
	if n := len(s.History); n > 0 && s.History[n-1] != nil {
		str(s.History[n-1].ID)
	}
	num(int64(len(s.Artifacts)))
	for _, a := range s.Artifacts {
		if a == nil {
			continue
		}
		str(string(a.ID))
		num(int64(len(a.Parts)))
		num(int64(artifactSize(a)))
	}
	num(int64(len(s.Metadata)))
	if v := h.Sum64(); v != 0 {
		return v
	}
	return 1
}

// capHistory keeps the newest MaxHistory messages of s.
func (f *Fleet) capHistory(t *Task, s *a2a.Task) {
	max := f.opts.MaxHistory
	if max < 0 || len(s.History) <= max {
		return
	}
	kept := make([]*a2a.Message, max) // a copy, so the dropped ones can be freed
	copy(kept, s.History[len(s.History)-max:])
	s.History = kept
	t.Truncated = true
}

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

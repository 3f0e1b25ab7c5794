package model

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

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
	var h fnv64 = fnvOffset
	h.str(string(s.Status.State))
	h.str(s.ContextID)
	if ts := s.Status.Timestamp; ts != nil {
		h.num(ts.UnixNano())
	}
	if m := s.Status.Message; m != nil {
		h.str(m.ID)
		h.num(int64(len(m.Parts)))
	}
	h.num(int64(len(s.History)))
	if n := len(s.History); n > 0 && s.History[n-1] != nil {
		h.str(s.History[n-1].ID)
	}
	h.num(int64(len(s.Artifacts)))
	for _, a := range s.Artifacts {
		if a == nil {
			continue
		}
		h.str(string(a.ID))
		h.num(int64(len(a.Parts)))
		h.num(int64(artifactSize(a)))
	}
	h.num(int64(len(s.Metadata)))
	if h != 0 {
		return uint64(h)
	}
	return 1
}

// fnv64 is FNV-1a, fed without allocating.
type fnv64 uint64

const (
	fnvOffset fnv64 = 14695981039346656037
	fnvPrime  fnv64 = 1099511628211
)

func (h *fnv64) num(n int64) {
	for i := 0; i < 8; i++ {
		*h = (*h ^ fnv64(byte(n>>(8*i)))) * fnvPrime
	}
}

func (h *fnv64) str(s string) {
	h.num(int64(len(s)))
	for i := 0; i < len(s); i++ {
		*h = (*h ^ fnv64(s[i])) * fnvPrime
	}
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

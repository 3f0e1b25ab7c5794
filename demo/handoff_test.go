package demo

import (
	"errors"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

func TestParseDecision(t *testing.T) {
	data := func(v map[string]any) *a2a.Part { return a2a.NewDataPart(v) }
	text := a2a.NewTextPart
	tests := []struct {
		name          string
		parts         []*a2a.Part
		ok, approve   bool
		reason, whoBy string
	}{
		{"bare approve", []*a2a.Part{text("approve")}, true, true, "", ""},
		{"approved with reason", []*a2a.Part{text("Approved: tests are green")}, true, true, "tests are green", ""},
		{"deny with reason", []*a2a.Part{text("deny - freeze until Monday")}, true, false, "freeze until Monday", ""},
		{"denied", []*a2a.Part{text("  DENIED.")}, true, false, "", ""},
		{"data part wins over text", []*a2a.Part{text("approve"), data(map[string]any{"decision": "deny", "reason": "no", "approver": "ops@h"})}, true, false, "no", "ops@h"},
		{"data approve", []*a2a.Part{data(map[string]any{"decision": "approve"})}, true, true, "", ""},
		{"data without decision falls back to text", []*a2a.Part{data(map[string]any{"note": 1}), text("approve ok")}, true, true, "ok", ""},
		{"approval is not approve", []*a2a.Part{text("approval pending?")}, false, false, "", ""},
		{"question", []*a2a.Part{text("what does this change?")}, false, false, "", ""},
		{"unknown data decision", []*a2a.Part{data(map[string]any{"decision": "maybe"})}, false, false, "", ""},
		{"empty", []*a2a.Part{text("")}, false, false, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := a2a.NewMessage(a2a.MessageRoleUser, tc.parts...)
			d, err := parseDecision(m)
			if (err == nil) != tc.ok {
				t.Fatalf("err = %v, want ok=%v", err, tc.ok)
			}
			if err != nil {
				if !errors.Is(err, errNoDecision) {
					t.Fatalf("err = %v, want it to say what a decision looks like", err)
				}
				return
			}
			if d.approve != tc.approve || d.reason != tc.reason || d.by != tc.whoBy || d.msg != m {
				t.Fatalf("decision = %+v, want approve=%v reason=%q by=%q", d, tc.approve, tc.reason, tc.whoBy)
			}
		})
	}
}

func FuzzParseDecision(f *testing.F) {
	for _, s := range []string{"approve", "Denied: x", "approval", "", "deny\x00\xff", "  approved — fine"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := parseDecision(a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(s)))
		if err != nil {
			return
		}
		if !strings.Contains(s, d.reason) {
			t.Fatalf("reason %q is not from the text %q", d.reason, s)
		}
		word := strings.ToLower(firstWordRE.FindStringSubmatch(s)[1])
		if d.approve != strings.HasPrefix(word, "approve") {
			t.Fatalf("%q read as approve=%v", s, d.approve)
		}
	})
}

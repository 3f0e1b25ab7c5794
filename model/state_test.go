package model

import (
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

func TestClassOf(t *testing.T) {
	tests := []struct {
		in    a2a.TaskState
		norm  a2a.TaskState
		class Class
		short string
	}{
		// v1.0 names
		{a2a.TaskStateSubmitted, a2a.TaskStateSubmitted, ClassActive, "submitted"},
		{a2a.TaskStateWorking, a2a.TaskStateWorking, ClassActive, "working"},
		{a2a.TaskStateInputRequired, a2a.TaskStateInputRequired, ClassInterrupted, "input-required"},
		{a2a.TaskStateAuthRequired, a2a.TaskStateAuthRequired, ClassInterrupted, "auth-required"},
		{a2a.TaskStateCompleted, a2a.TaskStateCompleted, ClassTerminal, "completed"},
		{a2a.TaskStateFailed, a2a.TaskStateFailed, ClassTerminal, "failed"},
		{a2a.TaskStateCanceled, a2a.TaskStateCanceled, ClassTerminal, "canceled"},
		{a2a.TaskStateRejected, a2a.TaskStateRejected, ClassTerminal, "rejected"},
		{a2a.TaskStateUnspecified, a2a.TaskStateUnspecified, ClassUnknown, "unknown"},
		{"TASK_STATE_UNSPECIFIED", a2a.TaskStateUnspecified, ClassUnknown, "unknown"},
		// A2A 0.3 names
		{"submitted", a2a.TaskStateSubmitted, ClassActive, "submitted"},
		{"working", a2a.TaskStateWorking, ClassActive, "working"},
		{"input-required", a2a.TaskStateInputRequired, ClassInterrupted, "input-required"},
		{"auth-required", a2a.TaskStateAuthRequired, ClassInterrupted, "auth-required"},
		{"completed", a2a.TaskStateCompleted, ClassTerminal, "completed"},
		{"failed", a2a.TaskStateFailed, ClassTerminal, "failed"},
		{"canceled", a2a.TaskStateCanceled, ClassTerminal, "canceled"},
		{"rejected", a2a.TaskStateRejected, ClassTerminal, "rejected"},
		{"unknown", a2a.TaskStateUnspecified, ClassUnknown, "unknown"},
		// short and mixed forms people type, and spellings agents send
		{"INPUT_REQUIRED", a2a.TaskStateInputRequired, ClassInterrupted, "input-required"},
		{"input_required", a2a.TaskStateInputRequired, ClassInterrupted, "input-required"},
		{"Auth_Required", a2a.TaskStateAuthRequired, ClassInterrupted, "auth-required"},
		{"task_state_working", a2a.TaskStateWorking, ClassActive, "working"},
		{"COMPLETED", a2a.TaskStateCompleted, ClassTerminal, "completed"},
		{"cancelled", a2a.TaskStateCanceled, ClassTerminal, "canceled"},
		{"unspecified", a2a.TaskStateUnspecified, ClassUnknown, "unknown"},
		// names we do not know: kept, shown, never a crash
		{"TASK_STATE_PAUSED", "TASK_STATE_PAUSED", ClassUnknown, "unknown(TASK_STATE_PAUSED)"},
		{"paused", "paused", ClassUnknown, "unknown(paused)"},
		// an agent's own name is its text: shown without controls, cut
		{"\x1b[31m", "\x1b[31m", ClassUnknown, "unknown(?[31m)"},
		{"TASK_STATE_\x1b]0;TITLE\x07X", "TASK_STATE_\x1b]0;TITLE\x07X", ClassUnknown, "unknown(TASK_STATE_?]0;TITLE?X)"},
		{"a\u009b2J\u202eb\u2028c\x7fd\xffe", "a\u009b2J\u202eb\u2028c\x7fd\xffe", ClassUnknown, "unknown(a?2J?b?c?d?e)"},
		{a2a.TaskState(strings.Repeat("x", 50)), a2a.TaskState(strings.Repeat("x", 50)), ClassUnknown, "unknown(" + strings.Repeat("x", 40) + "…)"},
	}
	for _, tt := range tests {
		t.Run(string(tt.in), func(t *testing.T) {
			if got := NormalizeState(tt.in); got != tt.norm {
				t.Errorf("NormalizeState(%q) = %q, want %q", tt.in, got, tt.norm)
			}
			if got := ClassOf(tt.in); got != tt.class {
				t.Errorf("ClassOf(%q) = %v, want %v", tt.in, got, tt.class)
			}
			if got := ShortState(tt.in); got != tt.short {
				t.Errorf("ShortState(%q) = %q, want %q", tt.in, got, tt.short)
			}
		})
	}
}

func TestClassString(t *testing.T) {
	want := map[Class]string{ClassUnknown: "unknown", ClassActive: "active", ClassInterrupted: "interrupted", ClassTerminal: "terminal"}
	for c, s := range want {
		if c.String() != s {
			t.Errorf("%d.String() = %q, want %q", c, c.String(), s)
		}
		if got, ok := parseClass(s); !ok || got != c {
			t.Errorf("parseClass(%q) = %v, %v", s, got, ok)
		}
	}
}

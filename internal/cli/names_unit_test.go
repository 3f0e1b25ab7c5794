package cli

import (
	"strings"
	"testing"
)

func TestNameFromCard(t *testing.T) {
	tests := []struct{ in, want string }{
		{"test-runner", "test-runner"},
		{"Test Runner  v2", "Test-Runner-v2"},
		{" \x1b]0;title\x07evil\u202e\tname\u2028 ", "evil-name"},
		{"\x1b[31m", ""},
		{strings.Repeat("é", 80), strings.Repeat("é", 64)},
	}
	for _, tt := range tests {
		if got := nameFromCard(tt.in); got != tt.want {
			t.Errorf("nameFromCard(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// URL agents are named in the order given, whatever order their first
// attempts end in, and a taken name gets the next free suffix.
func TestAgentNamesOrderAndSuffixes(t *testing.T) {
	n := newAgentNames(nil)
	n.byURL = []string{"h:1", "h:2", "h:3"}
	n.taken = map[string]bool{"h:1": true, "h:2": true, "h:3": true, "a": true}
	if got := n.learn("h:2", "a"); got != nil {
		t.Errorf("h:2 named before h:1: %v", got)
	}
	if got := n.learn("h:1", "h:3"); len(got) != 2 {
		t.Errorf("learn h:1 = %v, want h:1 and h:2", got)
	}
	n.learn("h:3", "a")
	for key, want := range map[string]string{"h:1": "h:3-2", "h:2": "a-2", "h:3": "a-3"} {
		if got, _ := n.name(key); got != want {
			t.Errorf("name(%s) = %q, want %q", key, got, want)
		}
	}
}

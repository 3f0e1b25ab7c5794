package model

import (
	"slices"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// TestResolveIDTakesAStartOfTheShortID: a person reads a UUIDv7's short
// id (its end) off a row and types its start; the full id's start is
// shared by every task of the same minute.
func TestResolveIDTakesAStartOfTheShortID(t *testing.T) {
	a := a2a.TaskID("019ad5c1-7e2a-7b3c-9d4e-5f60436c2b42") // short id 436c2b42
	b := a2a.TaskID("019ad5c1-7e2a-7b3c-9d4e-5f612b42aa01") // short id 2b42aa01
	c := a2a.TaskID("019ad5c1-7e2a-7b3c-9d4e-5f612b4f0000") // short id 2b4f0000
	v4 := a2a.TaskID("9f3c2e1a-0000-4000-8000-000000000001")
	ids := []a2a.TaskID{a, b, c, v4}
	tests := []struct {
		typed string
		want  []a2a.TaskID
	}{
		{"436c", []a2a.TaskID{a}},           // a start of the short id
		{"436C2B42", []a2a.TaskID{a}},       // all of it, any case
		{"2b42", []a2a.TaskID{b}},           // not the end of a's id: a start of b's short id
		{"2b4", []a2a.TaskID{b, c}},         // several: the candidates
		{"019ad5c1", []a2a.TaskID{a, b, c}}, // the full id's start, shared by the minute
		{string(a), []a2a.TaskID{a}},        // the whole id
		{"-5f60436c2b42", []a2a.TaskID{a}},  // a pasted tail longer than the short id
		{"9f3c", []a2a.TaskID{v4}},          // a v4 id is shown by its start
		{"0001", nil},                       // a v4 id's end is not shown
		{"zzzz", nil},
		{"", nil},
	}
	for _, tt := range tests {
		if got := ResolveID(ids, tt.typed); !slices.Equal(got, tt.want) {
			t.Errorf("ResolveID(%q) = %v, want %v", tt.typed, got, tt.want)
		}
	}
	// An id equal to what is typed wins over the ids it starts.
	if got := ResolveID([]a2a.TaskID{"t1", "t10"}, "t1"); !slices.Equal(got, []a2a.TaskID{"t1"}) {
		t.Errorf("exact id: %v", got)
	}
}

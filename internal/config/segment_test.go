package config

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestJournalSegment: journal_segment takes a size, an age, both or
// "off", and refuses anything else naming the file, line and key.
func TestJournalSegment(t *testing.T) {
	tests := []struct {
		doc  string
		want JournalSegment
		msg  string // "" = valid
	}{
		{"", JournalSegment{Size: 64 << 20}, ""},
		{`journal_segment = "64MiB"`, JournalSegment{Size: 64 << 20}, ""},
		{`journal_segment = "1GiB"`, JournalSegment{Size: 1 << 30}, ""},
		{`journal_segment = "7d"`, JournalSegment{Age: 7 * 24 * time.Hour}, ""},
		{`journal_segment = "12h"`, JournalSegment{Age: 12 * time.Hour}, ""},
		{`journal_segment = "64MiB or 7d"`, JournalSegment{Size: 64 << 20, Age: 7 * 24 * time.Hour}, ""},
		{`journal_segment = "7d or 256KiB"`, JournalSegment{Size: 256 << 10, Age: 7 * 24 * time.Hour}, ""},
		{`journal_segment = "off"`, JournalSegment{}, ""},
		{`journal_segment = "64MB"`, JournalSegment{}, `"64MB" is not a size in KiB, MiB or GiB`},
		{`journal_segment = "-1MiB"`, JournalSegment{}, "not a size"},
		{`journal_segment = "10B"`, JournalSegment{}, "64KiB or more"},
		{`journal_segment = "1m"`, JournalSegment{}, "1h or more"},
		{`journal_segment = "1MiB or 2MiB"`, JournalSegment{}, "two sizes"},
		{`journal_segment = 64`, JournalSegment{}, "neither a size"},
	}
	for _, tt := range tests {
		t.Run(tt.doc, func(t *testing.T) {
			c, err := Parse([]byte("bell = true\n"+tt.doc+"\n"), "test.toml")
			if tt.msg == "" {
				if err != nil || c.JournalSegment != tt.want {
					t.Fatalf("got %+v, %v; want %+v", c.JournalSegment, err, tt.want)
				}
				if again, err := parseSegment(c.JournalSegment.String()); err != nil || again != tt.want {
					t.Errorf("String() = %q reads back as %+v, %v", c.JournalSegment.String(), again, err)
				}
				return
			}
			var ce *Error
			if !errors.As(err, &ce) || ce.Line != 2 || ce.Key != "journal_segment" || !strings.Contains(ce.Msg, tt.msg) {
				t.Fatalf("error %v; want test.toml:2 journal_segment ... %q", err, tt.msg)
			}
		})
	}
}

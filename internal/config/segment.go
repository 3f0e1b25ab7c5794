package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2/unstable"
)

// JournalSegment says when the journal file is closed and a new segment
// begun (journal_segment): at a size ("64MiB"), an age ("7d", "12h"),
// whichever comes first of both ("64MiB or 7d"), or "off" (one file for
// ever). The zero value is off.
type JournalSegment struct {
	Size int64         // bytes; 0 = no limit by size
	Age  time.Duration // 0 = no limit by age
}

// DefaultJournalSegmentSize is journal_segment's default: 64 MiB.
const DefaultJournalSegmentSize = 64 << 20

// The smallest segment: smaller ones would close at nearly every write.
const (
	minSegmentSize = 64 << 10
	minSegmentAge  = time.Hour
)

// sizeUnits are the units journal_segment takes, largest first.
var sizeUnits = []struct {
	name string
	n    int64
}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"B", 1}}

// UnmarshalText parses journal_segment. The error is a go-toml parser
// error, so that it names the file, line and key.
func (s *JournalSegment) UnmarshalText(b []byte) error {
	v, err := parseSegment(string(b))
	if err != nil {
		return &unstable.ParserError{Highlight: b, Message: err.Error()}
	}
	*s = v
	return nil
}

func parseSegment(text string) (JournalSegment, error) {
	var s JournalSegment
	if strings.TrimSpace(text) == "off" {
		return s, nil
	}
	for _, part := range strings.Split(text, " or ") {
		part = strings.TrimSpace(part)
		if n, ok, err := parseSize(part); ok {
			if err != nil || s.Size != 0 {
				return s, fmt.Errorf("%s; write a size like \"64MiB\", an age like \"7d\", both as \"64MiB or 7d\", or \"off\"", orTwice(err, "two sizes"))
			}
			if n < minSegmentSize {
				return s, fmt.Errorf("a segment of %s would close at nearly every write; use 64KiB or more (64MiB is the default)", part)
			}
			s.Size = n
			continue
		}
		d, err := parseAge(part)
		if err != nil || s.Age != 0 {
			return s, fmt.Errorf("%s; write a size like \"64MiB\", an age like \"7d\", both as \"64MiB or 7d\", or \"off\"", orTwice(err, "two ages"))
		}
		if d < minSegmentAge {
			return s, fmt.Errorf("a segment of %s would close at nearly every write; use 1h or more", part)
		}
		s.Age = d
	}
	return s, nil
}

func orTwice(err error, twice string) string {
	if err != nil {
		return err.Error()
	}
	return twice
}

// parseSize reads "64MiB"; ok is false when part ends in no size unit.
func parseSize(part string) (int64, bool, error) {
	for _, u := range sizeUnits {
		num, found := strings.CutSuffix(part, u.name)
		if !found {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
		if err != nil || n <= 0 || n > (1<<62)/u.n {
			return 0, true, fmt.Errorf("%q is not a size in KiB, MiB or GiB", part)
		}
		return n * u.n, true, nil
	}
	return 0, false, nil
}

// parseAge reads "7d" (days) or a Go duration ("12h").
func parseAge(part string) (time.Duration, error) {
	if num, found := strings.CutSuffix(part, "d"); found {
		n, err := strconv.Atoi(num)
		if err != nil || n <= 0 || n > 36500 {
			return 0, fmt.Errorf("%q is not an age in days", part)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(part)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q is neither a size (KiB, MiB, GiB) nor an age (d, h, m)", part)
	}
	return d, nil
}

// MarshalText writes journal_segment as it is read.
func (s JournalSegment) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// String is journal_segment as written in the config: "64MiB", "7d",
// "64MiB or 7d", "off".
func (s JournalSegment) String() string {
	var p []string
	if s.Size > 0 {
		for _, u := range sizeUnits {
			if s.Size%u.n == 0 {
				p = append(p, fmt.Sprintf("%d%s", s.Size/u.n, u.name))
				break
			}
		}
	}
	if s.Age > 0 {
		switch {
		case s.Age%(24*time.Hour) == 0:
			p = append(p, fmt.Sprintf("%dd", s.Age/(24*time.Hour)))
		case s.Age%time.Hour == 0:
			p = append(p, fmt.Sprintf("%dh", s.Age/time.Hour))
		default:
			p = append(p, s.Age.String())
		}
	}
	if len(p) == 0 {
		return "off"
	}
	return strings.Join(p, " or ")
}

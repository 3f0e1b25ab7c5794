package sanitize

import (
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// hostile builds the inputs an agent can send to make one grapheme
// cluster, or one line of zero-width clusters, as long as it likes.
var hostile = map[string]func(n int) string{
	"combining": func(n int) string { return "Z" + strings.Repeat("\u0301", n) },
	"zwj":       func(n int) string { return strings.Repeat("👨\u200d", n) + "👨" },
	"vs":        func(n int) string { return "❤" + strings.Repeat("\ufe0f", n) },
	"ri":        func(n int) string { return strings.Repeat("🇫", n) },
	"zwsp":      func(n int) string { return strings.Repeat("\u200b", n) },
	"invalid":   func(n int) string { return strings.Repeat("\xff", n) },
	"hangul":    func(n int) string { return strings.Repeat("\u1100", n) },
	"tags":      func(n int) string { return "🏴" + strings.Repeat("\U000E0067", n) },
	"escapes":   func(n int) string { return strings.Repeat("\x1b[m", n) + "visible" },
	"newlines":  func(n int) string { return strings.Repeat("x\n", n) },
}

// checkCaps fails when out holds a cluster, or is longer, than the caps
// allow. Ellipsis may join the cluster before it.
func checkCaps(t *testing.T, name, out string, maxBytes int) {
	t.Helper()
	if len(out) > maxBytes+len(Ellipsis) {
		t.Fatalf("%s: %d bytes out, want at most %d", name, len(out), maxBytes+len(Ellipsis))
	}
	for rest := out; rest != ""; {
		c, _ := ansi.FirstGraphemeCluster(rest, ansi.GraphemeWidth)
		rest = rest[len(c):]
		trimmed := c
		if rest == "" {
			trimmed = strings.TrimSuffix(c, Ellipsis)
		}
		if n := utf8.RuneCountInString(trimmed); n > MaxClusterRunes || len(trimmed) > MaxClusterBytes {
			t.Fatalf("%s: a cluster of %d code points, %d bytes in the output", name, n, len(trimmed))
		}
	}
}

// TestHostileInputIsBounded sends two million code points of each shape
// through every entry point: the output stays within the caps, and what
// lies past the scan window is never read, so the work is bounded by the
// caps too.
func TestHostileInputIsBounded(t *testing.T) {
	for name, build := range hostile {
		s := build(2_000_000)
		for _, max := range []int{1, 80, math.MaxInt} {
			line, text := Line(s, max), Text(s, max)
			checkCaps(t, name+"/Line", line, MaxLineBytes)
			checkCaps(t, name+"/Text", text, MaxTextBytes)
			if max < math.MaxInt && ansi.StringWidth(line) > max {
				t.Errorf("%s: Line width %d > %d", name, ansi.StringWidth(line), max)
			}
		}
		for _, c := range []struct {
			name string
			f    func(string, int) string
			scan int
		}{{"Line", Line, scanFactor * MaxLineBytes}, {"Text", Text, scanFactor * MaxTextBytes}} {
			big := s
			for len(big) <= c.scan+1 {
				big += s
			}
			if got, other := c.f(big, math.MaxInt), c.f(big[:c.scan+1]+"tail", math.MaxInt); got != other {
				t.Errorf("%s/%s reads past its scan window: %d bytes out, %d with another tail", name, c.name, len(got), len(other))
			}
		}
	}
}

func TestClusterCaps(t *testing.T) {
	marks := func(n int) string { return strings.Repeat("\u0301", n) }
	tests := []struct {
		name, in, want string
	}{
		{"at the cap", "e" + marks(MaxClusterRunes-1) + "x", "e" + marks(MaxClusterRunes-1) + "x"},
		{"one over", "e" + marks(MaxClusterRunes) + "x", "\uFFFDx"},
		{"the two million marks", "Z" + marks(2_000_000), "\uFFFD…"},
		{"bytes over", "👨" + strings.Repeat("\U000E0067", MaxClusterBytes/4) + "x", "\uFFFDx"},
		{"family emoji kept", "👨🏻\u200d👩🏻\u200d👧🏻\u200d👦🏻 ok", "👨🏻\u200d👩🏻\u200d👧🏻\u200d👦🏻 ok"},
		{"long zwj chain", strings.Repeat("👨\u200d", 40) + "👨 ok", "\uFFFD ok"},
		{"flags kept", "🇫🇷🇩🇪", "🇫🇷🇩🇪"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Line(tt.in, 80); got != tt.want {
				t.Errorf("Line = %q (%d bytes), want %q", shorten(got), len(got), shorten(tt.want))
			}
			if got := Text(tt.in, 80); got != tt.want {
				t.Errorf("Text = %q (%d bytes), want %q", shorten(got), len(got), shorten(tt.want))
			}
		})
	}
}

func TestLineCaps(t *testing.T) {
	long := strings.Repeat("x", MaxLineRunes+10)
	if got, want := Line(long, math.MaxInt), long[:MaxLineRunes]+Ellipsis; got != want {
		t.Errorf("Line(%d x) = %d bytes, want %d", len(long), len(got), len(want))
	}
	wide := strings.Repeat("日", MaxLineRunes+10) // 3 bytes a rune: the rune cap ends it first
	if got := Line(wide, math.MaxInt); utf8.RuneCountInString(got) != MaxLineRunes+1 || !strings.HasSuffix(got, Ellipsis) {
		t.Errorf("Line(wide) = %d runes, want %d and an ellipsis", utf8.RuneCountInString(got), MaxLineRunes+1)
	}
	emoji := strings.Repeat("🇫🇷", MaxLineBytes) // 8 bytes a cluster: the byte cap ends it first
	if got := Line(emoji, math.MaxInt); len(got) > MaxLineBytes+len(Ellipsis) || !strings.HasSuffix(got, Ellipsis) {
		t.Errorf("Line(flags) = %d bytes, want at most %d and an ellipsis", len(got), MaxLineBytes+len(Ellipsis))
	}
	// In a text, a long line ends with "…" and the next line is kept.
	if got, want := Text(long+"\nnext", math.MaxInt), long[:MaxLineRunes]+Ellipsis+"\nnext"; got != want {
		t.Errorf("Text(long line, next) = %q…%q, want the line cut and the next one kept", got[:8], got[len(got)-8:])
	}
	many := strings.Repeat("line\n", MaxTextRunes)
	if got := Text(many, math.MaxInt); utf8.RuneCountInString(got) > MaxTextRunes+1 || !strings.HasSuffix(got, Ellipsis) {
		t.Errorf("Text(many lines) = %d runes, want at most %d and an ellipsis", utf8.RuneCountInString(got), MaxTextRunes+1)
	}
}

func TestSeparatorsAndFormatCharacters(t *testing.T) {
	for _, tt := range []struct{ in, line, text string }{
		{"a\u2028b\u2029c", "a b c", "a\nb\nc"},
		{"a\u2028\u2029b", "a  b", "a\n\nb"},
		{"a\u206ab\u206fc", "abc", "abc"},
		{"a\ufff9b\ufffac\ufffbd", "abcd", "abcd"},
		{"\u0085a\u000bb\u000cc", "abc", "abc"},
	} {
		if got := Line(tt.in, 80); got != tt.line {
			t.Errorf("Line(%q) = %q, want %q", tt.in, got, tt.line)
		}
		if got := Text(tt.in, 80); got != tt.text {
			t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.text)
		}
	}
}

// shorten keeps a long string readable in a failure message.
func shorten(s string) string {
	if len(s) > 80 {
		return s[:40] + "..." + s[len(s)-40:]
	}
	return s
}

// FuzzHostile repeats a fuzzed unit many times, the way an attacker
// builds one huge cluster or line, and checks every entry point against
// the caps.
func FuzzHostile(f *testing.F) {
	for _, u := range []string{"\u0301", "👨\u200d", "\ufe0f", "🇫", "\u200b", "\xff", "\u1100", "\U000E0067", "\x1b[m", "x\n", "\u2028", "e\u0301"} {
		f.Add("Z", u, uint32(100_000), 80)
	}
	f.Fuzz(func(t *testing.T, head, unit string, n uint32, max int) {
		if unit == "" {
			return
		}
		n = n % (1 << 22 / uint32(len(unit)+1)) // at most about 4 MiB of input
		s := head + strings.Repeat(unit, int(n))
		max = max%200 + 1
		if max < 1 {
			max = -max + 1
		}
		line, text := Line(s, max), Text(s, max)
		checkSafe(t, s[:min(len(s), 64)], line, false)
		checkSafe(t, s[:min(len(s), 64)], text, true)
		checkCaps(t, "Line", line, MaxLineBytes)
		checkCaps(t, "Text", text, MaxTextBytes)
		if w := ansi.StringWidth(line); w > max {
			t.Fatalf("Line width %d > %d", w, max)
		}
		if w := textWidth(text); w > max {
			t.Fatalf("Text width %d > %d", w, max)
		}
	})
}

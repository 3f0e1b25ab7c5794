package sanitize

import (
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

func TestLine(t *testing.T) {
	tests := []struct {
		name string
		in   string
		max  int
		want string
	}{
		{"plain", "hello", 10, "hello"},
		{"plain exact", "hello", 5, "hello"},
		{"plain cut", "hello world", 6, "hello…"},
		{"max one", "hello", 1, "…"},
		{"max zero", "hello", 0, ""},
		{"max negative", "hello", -3, ""},
		{"no cut", strings.Repeat("x", 1000), math.MaxInt, strings.Repeat("x", 1000)},
		{"sgr colour", "\x1b[31mred\x1b[0m", 20, "red"},
		{"cursor move", "a\x1b[2;5Hb", 20, "ab"},
		{"private csi", "a\x1b[?1049hb", 20, "ab"},
		{"osc title bel", "a\x1b]0;pwned\x07b", 20, "ab"},
		{"osc title st", "a\x1b]2;pwned\x1b\\b", 20, "ab"},
		{"osc 52 clipboard", "x\x1b]52;c;cm0gLXJmIC8=\x07y", 20, "xy"},
		{"osc 8 hyperlink", "\x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\", 20, "click"},
		{"unterminated osc", "ok\x1b]52;c;AAAA", 20, "ok"},
		{"dcs", "a\x1bPq#0;2;0;0;0\x1b\\b", 20, "ab"},
		{"apc", "a\x1b_Gf=100;AAAA\x1b\\b", 20, "ab"},
		{"pm", "a\x1b^secret\x1b\\b", 20, "ab"},
		{"sos", "a\x1bXsecret\x1b\\b", 20, "ab"},
		{"c1 csi rune", "a\u009b31mb", 20, "ab"},
		{"c1 osc rune", "a\u009d0;t\u009cb", 20, "ab"},
		{"c1 dcs rune", "a\u0090x\u009cb", 20, "ab"},
		{"8-bit csi byte is invalid utf8", "a\x9b31mb", 20, "a\uFFFD31mb"},
		{"esc charset", "a\x1b(Bb", 20, "ab"},
		{"esc save cursor", "a\x1b7b", 20, "ab"},
		{"esc reset", "a\x1bcb", 20, "ab"},
		{"lone esc at end", "ab\x1b", 20, "ab"},
		{"esc esc csi", "a\x1b\x1b[1mb", 20, "ab"},
		{"c0 controls", "a\x00\x01\x07\x08\x7fb", 20, "ab"},
		{"newline tab become space", "a\nb\tc", 20, "a b c"},
		{"crlf one space", "a\r\nb", 20, "a b"},
		{"lone cr", "a\rb", 20, "a b"},
		{"bidi override", "abc\u202egnp.exe", 20, "abcgnp.exe"},
		{"bidi isolates", "\u2066a\u2069\u2067b\u2068", 20, "ab"},
		{"bidi marks", "a\u200eb\u200fc\u061cd", 20, "abcd"},
		{"invalid utf8", "a\xffb\xc3", 20, "a\uFFFDb\uFFFD"},
		{"wide runes", "日本語テキスト", 7, "日本語…"},
		{"wide runes exact", "日本語", 6, "日本語"},
		{"wide rune does not split", "日本語", 4, "日…"},
		{"emoji cluster kept whole", "👍🏽👍🏽👍🏽", 5, "👍🏽👍🏽…"},
		{"combining mark", "e\u0301e\u0301e\u0301e\u0301", 3, "e\u0301e\u0301…"},
		{"c1 nel", "a\u0085b", 20, "ab"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Line(tt.in, tt.max)
			if got != tt.want {
				t.Errorf("Line(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
			}
		})
	}
}

func TestText(t *testing.T) {
	tests := []struct {
		name string
		in   string
		max  int
		want string
	}{
		{"keeps lines and tabs", "a\nb\tc", 20, "a\nb\tc"},
		{"crlf", "a\r\nb\rc", 20, "a\nb\nc"},
		{"strips sequences", "\x1b[1mbold\x1b[0m\n\x1b]52;c;eA==\x07next", 20, "bold\nnext"},
		{"strips vt ff", "a\vb\fc", 20, "abc"},
		{"cut counts newlines", "ab\ncd\nef", 6, "ab\ncd…"},
		{"fits", "ab\ncd", 5, "ab\ncd"},
		{"zero", "ab", 0, ""},
		{"invalid utf8", "\xfe\n", 5, "\uFFFD\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Text(tt.in, tt.max)
			if got != tt.want {
				t.Errorf("Text(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
			}
		})
	}
}

// TestLineWidthMatchesLipgloss checks that Line's idea of width is the one
// lipgloss lays out with (ansi.StringWidth).
func TestLineWidthMatchesLipgloss(t *testing.T) {
	for _, s := range []string{"日本語テキスト", "👍🏽x👍🏽", "e\u0301abc", "1\ufe0f\u20e3 keycap", "🇫🇷🇩🇪🇮🇹", "0\u1c340\u1c34 spacing marks", "e\u0301\u0301"} {
		for max := 1; max < 12; max++ {
			got := Line(s, max)
			if w := ansi.StringWidth(got); w > max {
				t.Errorf("Line(%q, %d) = %q has width %d", s, max, got, w)
			}
		}
	}
}

// checkSafe fails when out could still act on a terminal.
func checkSafe(t *testing.T, in, out string, multiline bool) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("output %q of %q is not valid UTF-8", out, in)
	}
	for _, r := range out {
		switch {
		case r == '\n' || r == '\t':
			if !multiline {
				t.Fatalf("Line output %q of %q contains %q", out, in, r)
			}
		case isControl(r):
			t.Fatalf("output %q of %q contains control %U", out, in, r)
		case isBidi(r):
			t.Fatalf("output %q of %q contains bidi control %U", out, in, r)
		case r == lineSep || r == paraSep || isFormat(r):
			t.Fatalf("output %q of %q contains separator or format character %U", out, in, r)
		}
	}
}

// textWidth measures independently of cut: lines by ansi.StringWidth,
// plus one cell per newline and tab.
func textWidth(s string) int {
	n := strings.Count(s, "\n") + strings.Count(s, "\t")
	for _, line := range strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\t' }) {
		n += ansi.StringWidth(line)
	}
	return n
}

func fuzzSeeds(f *testing.F) {
	for _, s := range []string{
		"", "plain", "\x1b[31mred\x1b[0m", "\x1b]52;c;AAAA\x07", "\x1b]0;t\x1b\\", "\x1bPdcs\x1b\\",
		"\u009b1m", "\u009dosc\u009c", "abc\u202egnp", "\xff\xfe", "日本語", "👍🏽", "a\r\nb\tc",
		"\x1b", "\x1b[", "\x1b]", "e\u0301", "\u2066x\u2069", "a\u2028b\u2029", "\u206a\ufff9",
	} {
		f.Add(s, 10)
	}
}

func FuzzLine(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, in string, max int) {
		max = max%200 + 1
		if max < 1 {
			max = -max + 1
		}
		out := Line(in, max)
		checkSafe(t, in, out, false)
		if w := ansi.StringWidth(out); w > max {
			t.Fatalf("Line(%q, %d) = %q has width %d", in, max, out, w)
		}
	})
}

func FuzzText(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, in string, max int) {
		max = max%200 + 1
		if max < 1 {
			max = -max + 1
		}
		out := Text(in, max)
		checkSafe(t, in, out, true)
		if w := textWidth(out); w > max {
			t.Fatalf("Text(%q, %d) = %q has width %d", in, max, out, w)
		}
	})
}

func BenchmarkLine(b *testing.B) {
	s := strings.Repeat("status \x1b[1mtext\x1b[0m 日本 ", 20)
	b.ReportAllocs()
	for b.Loop() {
		Line(s, 80)
	}
	b.ReportMetric(float64(len(s)), "bytes/op-input")
}

// BenchmarkHostile runs Line and Text on two million code points of each
// hostile shape; the figures to watch are ns/op and bytes-out/op, which
// the caps keep independent of the input's size.
func BenchmarkHostile(b *testing.B) {
	for _, name := range []string{"combining", "zwj", "vs", "ri", "zwsp", "invalid", "hangul"} {
		s := hostile[name](2_000_000)
		for _, fn := range []struct {
			name string
			f    func(string, int) string
		}{{"Line", Line}, {"Text", Text}} {
			b.Run(fn.name+"/"+name, func(b *testing.B) {
				var out string
				b.ReportAllocs()
				for b.Loop() {
					out = fn.f(s, 80)
				}
				b.ReportMetric(float64(len(s)), "bytes-in/op")
				b.ReportMetric(float64(len(out)), "bytes-out/op")
			})
		}
	}
}

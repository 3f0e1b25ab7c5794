package termbg

import "testing"

func TestParseAnswer(t *testing.T) {
	for _, tc := range []struct {
		body     string
		dark, ok bool
	}{
		{"11;rgb:0000/0000/0000", true, true},
		{"11;rgb:ffff/ffff/ffff", false, true},
		{"11;rgb:ff/ff/ff", false, true},
		{"11;rgb:1e1e/1e1e/2e2e", true, true},
		{"11;rgb:fdf6/e3e3/dcdc", false, true}, // solarized light
		{"11;rgba:ffff/ffff/ffff/ffff", false, true},
		{"11;rgb:ffff/ffff", false, false},
		{"11;rgb:xyz/0/0", false, false},
		{"10;rgb:ffff/ffff/ffff", false, false}, // the foreground
		{"", false, false},
	} {
		dark, ok := ParseAnswer(tc.body)
		if dark != tc.dark || ok != tc.ok {
			t.Errorf("ParseAnswer(%q) = %v, %v; want %v, %v", tc.body, dark, ok, tc.dark, tc.ok)
		}
	}
}

package termbg_test

import (
	"testing"

	"a2atop/ui/termbg"
)

func TestGuessReadsCOLORFGBG(t *testing.T) {
	for _, c := range []struct {
		env  string
		dark bool
	}{
		{"", true}, {"15;0", true}, {"0;15", false}, {"0;7", false},
		{"0;8", false}, {"15;default;0", true}, {"0;default", true},
		{"nonsense", true}, {"0;-1", true}, {"0;300", true},
	} {
		if got := termbg.Guess(c.env); got != c.dark {
			t.Errorf("Guess(%q) = dark %v, want %v", c.env, got, c.dark)
		}
	}
}

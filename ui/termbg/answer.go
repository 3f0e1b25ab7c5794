package termbg

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/muesli/termenv"
)

// Query is what asks a terminal for its background colour (OSC 11). The
// dashboard writes it once its program reads the terminal, and draws
// meanwhile with the start's guess; the answer comes back in the input,
// "\x1b]11;rgb:RRRR/GGGG/BBBB" ended by ST or BEL, and is told apart
// from keys there (ui's background.go).
const Query = "\x1b]11;?\x1b\\"

// AnswerPrefix is how the body of an answer to Query starts, after its
// "\x1b]".
const AnswerPrefix = "11;"

// ParseAnswer reads the body of an answer to Query ("11;rgb:ffff/ffff/ffff",
// each of the three 1 to 4 hex digits) and reports whether that
// background is dark, as termenv judges it (lightness under one half);
// ok is false for anything else.
func ParseAnswer(body string) (dark, ok bool) {
	rest, found := strings.CutPrefix(body, AnswerPrefix+"rgb:")
	if !found {
		if rest, found = strings.CutPrefix(body, AnswerPrefix+"rgba:"); !found {
			return false, false
		}
	}
	parts := strings.Split(rest, "/")
	if len(parts) < 3 {
		return false, false
	}
	var rgb [3]uint64
	for i, p := range parts[:3] {
		v, err := strconv.ParseUint(p, 16, 16)
		if err != nil || len(p) == 0 || len(p) > 4 {
			return false, false
		}
		rgb[i] = v * 255 / (1<<(4*len(p)) - 1) // to 8 bits
	}
	c := termenv.RGBColor(fmt.Sprintf("#%02x%02x%02x", rgb[0], rgb[1], rgb[2]))
	_, _, l := termenv.ConvertToRGB(c).Hsl()
	return l < 0.5, true
}

package theme

import (
	"fmt"
	"reflect"
	"regexp"
	"sort"

	"github.com/charmbracelet/lipgloss"
)

// Token is one colour of the palette as [theme] names it, with what it
// colours and its light and dark values. Tokens lists them from the
// Palette's fields, so the list cannot drift from the palette.
type Token struct {
	Name, Doc   string
	Light, Dark string
}

// Tokens are every colour token of p, in palette order.
func Tokens(p Palette) []Token {
	v := reflect.ValueOf(p)
	t := v.Type()
	out := make([]Token, 0, t.NumField())
	for i := range t.NumField() {
		f := t.Field(i)
		c := v.Field(i).Interface().(lipgloss.AdaptiveColor)
		out = append(out, Token{Name: f.Tag.Get("token"), Doc: f.Tag.Get("doc"), Light: c.Light, Dark: c.Dark})
	}
	return out
}

// Color is a colour [theme] gives a token: one value for both
// backgrounds, or a light and a dark one ("" keeps the palette's).
type Color struct{ Light, Dark string }

// TokenError is a [theme] entry refused: the token, and why.
type TokenError struct {
	Token string
	Msg   string
}

func (e *TokenError) Error() string { return e.Token + ": " + e.Msg }

// colorValue is what a colour may be: an ANSI number (0-255) or a hex
// colour (#rgb, #rrggbb).
var colorValue = regexp.MustCompile(`^(\d{1,3}|#[0-9a-fA-F]{3}|#[0-9a-fA-F]{6})$`)

// Override gives p's tokens the colours of colors, by token name. An
// unknown token or a value that is no colour is a *TokenError.
func Override(p *Palette, colors map[string]Color) error {
	names := make([]string, 0, len(colors))
	for n := range colors {
		names = append(names, n)
	}
	sort.Strings(names)
	v := reflect.ValueOf(p).Elem()
	t := v.Type()
	for _, n := range names {
		c := colors[n]
		i := -1
		for j := range t.NumField() {
			if t.Field(j).Tag.Get("token") == n {
				i = j
			}
		}
		if i < 0 {
			return &TokenError{Token: n, Msg: "no such colour token (config.example.toml lists them all)"}
		}
		for _, val := range []string{c.Light, c.Dark} {
			if val != "" && !validColor(val) {
				return &TokenError{Token: n, Msg: fmt.Sprintf("%q is not a colour: use an ANSI number (0-255) or #rrggbb", val)}
			}
		}
		cur := v.Field(i).Interface().(lipgloss.AdaptiveColor)
		if c.Light != "" {
			cur.Light = c.Light
		}
		if c.Dark != "" {
			cur.Dark = c.Dark
		}
		v.Field(i).Set(reflect.ValueOf(cur))
	}
	return nil
}

func validColor(s string) bool {
	if !colorValue.MatchString(s) {
		return false
	}
	if s[0] != '#' {
		var n int
		fmt.Sscan(s, &n)
		return n <= 255
	}
	return true
}

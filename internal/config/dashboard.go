package config

import (
	"fmt"
	"slices"
	"strings"
)

// Notifications are the accepted values of notifications.
var Notifications = []string{"auto", "osc9", "osc777", "off"}

// View is one [[view]] table: a saved view of the tasks.
type View struct {
	// Name is the view's name for :view and its tab.
	Name string `toml:"name"`
	// Filter is what the tasks' / filter would say.
	Filter string `toml:"filter"`
	// Sort is a column, then asc or desc: "state", "upd desc".
	Sort string `toml:"sort"`
	// Columns are the columns shown; none listed is all of them.
	Columns []string `toml:"columns"`
	// Default opens the view when the dashboard starts.
	Default bool `toml:"default"`
}

// Color is a colour token of [theme]: one value for both backgrounds
// (token = "214") or a light and a dark one (token = { light = "130",
// dark = "214" }).
type Color struct{ Light, Dark string }

// At is a problem with the value at key ("keys.tasks.cancel",
// "view[2].sort", "theme.accent"), located on its line: for the checks
// that need the dashboard's own lists (actions, columns, tokens), which
// the command makes after Load.
func (c *Config) At(key, msg string) error {
	key = c.at + key
	return &Error{File: c.Path, Line: c.lines.lineOf(key), Key: key, Msg: msg}
}

// ViewKey is how At names field of the i-th view (0-based).
func ViewKey(i int, field string) string { return fmt.Sprintf("view[%d].%s", i+1, field) }

// KeyKey is how At names a [keys] entry: "keys.tasks.cancel".
func KeyKey(action string) string { return "keys." + action }

// ThemeKey is how At names a colour token of [theme].
func ThemeKey(token string) string { return "theme." + token }

// validateDashboard checks and reads the dashboard's tables: the theme
// (a mode, or a table of a mode and colours), the keys (each a string
// or a list of strings), notifications and hide_terminal_after. Which
// actions, columns and tokens exist the dashboard checks (At).
func (c *Config) validateDashboard() error {
	if err := c.readTheme(); err != nil {
		return err
	}
	if err := c.readKeys(); err != nil {
		return err
	}
	if !slices.Contains(Notifications, c.Notifications) {
		return c.At("notifications", fmt.Sprintf("%q: use one of %s", c.Notifications, strings.Join(Notifications, ", ")))
	}
	if c.HideTerminalAfter.Duration < 0 {
		return c.At("hide_terminal_after", "must be a duration like \"1h\", or \"0s\" to keep every terminal task")
	}
	return nil
}

// readTheme reads ThemeSetting into Theme and Colors.
func (c *Config) readTheme() error {
	switch t := c.ThemeSetting.(type) {
	case nil:
		return nil
	case string:
		c.Theme = t
		return nil
	case map[string]any:
		c.Colors = map[string]Color{}
		for name, v := range t {
			if name == "mode" {
				mode, ok := v.(string)
				if !ok {
					return c.At("theme.mode", "a quoted string: auto, dark or light")
				}
				c.Theme = mode
				continue
			}
			col, err := readColor(v)
			if err != nil {
				return c.At(ThemeKey(name), err.Error())
			}
			c.Colors[name] = col
		}
		return nil
	}
	return c.At("theme", "a mode (\"auto\", \"dark\", \"light\") or a [theme] table")
}

func readColor(v any) (Color, error) {
	switch v := v.(type) {
	case string:
		return Color{Light: v, Dark: v}, nil
	case map[string]any:
		var col Color
		for k, x := range v {
			s, ok := x.(string)
			switch {
			case !ok:
				return col, fmt.Errorf("%s: a quoted colour like \"214\" or \"#ffaf00\"", k)
			case k == "light":
				col.Light = s
			case k == "dark":
				col.Dark = s
			default:
				return col, fmt.Errorf("%s: a colour has light and dark values only", k)
			}
		}
		return col, nil
	}
	return Color{}, fmt.Errorf("a colour: \"214\", \"#ffaf00\", or { light = \"130\", dark = \"214\" }")
}

// readKeys reads Keys into KeyBinds.
func (c *Config) readKeys() error {
	c.KeyBinds = map[string][]string{}
	for screen, actions := range c.Keys {
		for action, v := range actions {
			name := screen + "." + action
			switch v := v.(type) {
			case string:
				c.KeyBinds[name] = []string{v}
			case []any:
				var keys []string
				for _, k := range v {
					s, ok := k.(string)
					if !ok {
						return c.At(KeyKey(name), "a list of quoted keys, like [\"x\", \"ctrl+x\"]")
					}
					keys = append(keys, s)
				}
				c.KeyBinds[name] = keys
			default:
				return c.At(KeyKey(name), "a quoted key like \"x\" or \"ctrl+x\", or a list of them")
			}
		}
	}
	return nil
}

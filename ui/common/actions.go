package common

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"unicode"

	"github.com/charmbracelet/bubbles/key"
)

// Action is one key of a KeyMap as [keys] names it: "tasks.cancel",
// "inbox.approve", "global.help". Every key.Binding field of a screen's
// KeyMap is one, found by reflection, so the list cannot drift from the
// keys.
type Action struct {
	Name string
	// Mode is when the key answers: "" while the screen's list is
	// browsed (where it meets the global keys), or the mode a field's
	// `keys:"MODE"` tag names (a dialog, text being typed). Layered keys
	// (`keys:"layered"`, esc) answer in turn, the first that has
	// something to do, and may share their keys with each other.
	Mode    string
	Layered bool
	B       *key.Binding
}

// Screen is the part of the name before the dot.
func (a Action) Screen() string { s, _, _ := strings.Cut(a.Name, "."); return s }

// Actions lists every key.Binding of keymap (a pointer to a KeyMap
// struct) under screen. Nested structs are flattened: embedded ones
// without a prefix, named ones with their field name ("filter_open");
// arrays are numbered ("view_1"). A field tagged `keys:"-"` is not an
// action (a copy of a global key a footer names); `keys:"MODE"` and
// `keys:"layered"` apply to the field and what it holds.
func Actions(screen string, keymap any) []Action {
	v := reflect.ValueOf(keymap)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		panic("common.Actions: keymap must point to a struct")
	}
	var out []Action
	walkKeys(v.Elem(), screen+".", "", false, &out)
	return out
}

var bindingType = reflect.TypeOf(key.Binding{})

func walkKeys(v reflect.Value, prefix, mode string, layered bool, out *[]Action) {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("keys")
		if tag == "-" || !f.IsExported() {
			continue
		}
		m, l := mode, layered
		switch tag {
		case "":
		case "layered":
			l = true
		default:
			m = tag
		}
		name := snake(f.Name)
		fv := v.Field(i)
		switch {
		case f.Type == bindingType:
			*out = append(*out, Action{Name: prefix + name, Mode: m, Layered: l, B: fv.Addr().Interface().(*key.Binding)})
		case f.Type.Kind() == reflect.Array && f.Type.Elem() == bindingType:
			for j := range fv.Len() {
				*out = append(*out, Action{Name: fmt.Sprintf("%s%s_%d", prefix, name, j+1), Mode: m, Layered: l,
					B: fv.Index(j).Addr().Interface().(*key.Binding)})
			}
		case f.Type.Kind() == reflect.Struct && f.Anonymous:
			walkKeys(fv, prefix, m, l, out)
		case f.Type.Kind() == reflect.Struct:
			walkKeys(fv, prefix+name+"_", m, l, out)
		}
	}
}

// snake writes a Go field name as [keys] does: NextPane is next_pane, ID
// is id, PageUp is page_up.
func snake(s string) string {
	var b strings.Builder
	rs := []rune(s)
	for i, r := range rs {
		if unicode.IsUpper(r) && i > 0 && (unicode.IsLower(rs[i-1]) || i+1 < len(rs) && unicode.IsLower(rs[i+1])) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// KeyError is a [keys] entry refused: the action it names, and why.
type KeyError struct {
	Action string
	Msg    string
}

func (e *KeyError) Error() string { return e.Action + ": " + e.Msg }

// Rebind gives the actions named in binds their new keys (and the help
// writes them), then checks that no two keys clash. An action keeps one
// binding on every screen that offers it: rebinding "tasks.cancel"
// rebinds "detail.cancel" too (an action of the same name after the
// screen, with the same default keys), unless binds names that one as
// well. An unknown action, an action without keys or a clash is a
// *KeyError naming the entry; a clash met on another screen says so.
func Rebind(actions []Action, binds map[string][]string) error {
	byName := make(map[string]Action, len(actions))
	defaults := make(map[string][]string, len(actions))
	for _, a := range actions {
		byName[a.Name] = a
		defaults[a.Name] = a.B.Keys()
	}
	names := make([]string, 0, len(binds))
	for n := range binds {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		a, ok := byName[n]
		if !ok {
			return &KeyError{Action: n, Msg: "no such action" + nearestAction(n, actions) + " (config.example.toml lists them all)"}
		}
		keys := binds[n]
		if len(keys) == 0 || slices.Contains(keys, "") {
			return &KeyError{Action: n, Msg: "give a key, like \"x\", \"ctrl+x\" or [\"x\", \"f2\"]"}
		}
		setKeys(a.B, keys)
	}
	from := follow(actions, binds, names, defaults)
	first := slices.Clone(names)
	for n := range from {
		first = append(first, n)
	}
	err := CheckClashes(actions, first)
	var ke *KeyError
	if errors.As(err, &ke) && from[ke.Action] != "" {
		src, _, _ := strings.Cut(ke.Msg, " is also ")
		_, other, _ := strings.Cut(ke.Msg, " is also ")
		other, _, _ = strings.Cut(other, ";")
		screen, _, _ := strings.Cut(ke.Action, ".")
		return &KeyError{Action: from[ke.Action], Msg: fmt.Sprintf("%s (%s too) is also %s; an action keeps its keys on every screen: "+
			"give [keys.%s] its own, or move the other", src, ke.Action, other, screen)}
	}
	return err
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// setKeys gives b keys, the help writing them, enabled as it was.
func setKeys(b *key.Binding, keys []string) {
	enabled := b.Enabled()
	*b = key.NewBinding(key.WithKeys(keys...), key.WithHelp(strings.Join(keys, "/"), b.Help().Desc))
	b.SetEnabled(enabled)
}

// follow gives the keys of each rebound action (names, in order) to the
// same action on the other screens, where binds does not name it, and
// returns which entry each one followed. Global keys are one action
// already; the help's close is its own.
func follow(actions []Action, binds map[string][]string, names []string, defaults map[string][]string) map[string]string {
	from := map[string]string{}
	// The tasks screen's entry first: where two screens bind one action
	// differently, a third follows the tasks.
	order := slices.Clone(names)
	slices.SortStableFunc(order, func(a, b string) int {
		return boolInt(!strings.HasPrefix(a, "tasks.")) - boolInt(!strings.HasPrefix(b, "tasks."))
	})
	for _, n := range order {
		screen, action, _ := strings.Cut(n, ".")
		if screen == "global" {
			continue
		}
		for _, a := range actions {
			s, act, _ := strings.Cut(a.Name, ".")
			if s == screen || s == "global" || act != action || binds[a.Name] != nil || from[a.Name] != "" ||
				!slices.Equal(defaults[a.Name], defaults[n]) {
				continue
			}
			setKeys(a.B, binds[n])
			from[a.Name] = n
		}
	}
	return from
}

// nearestAction is " (did you mean NAME?)" for the action named most
// like n, or "".
func nearestAction(n string, actions []Action) string {
	best, bestD := "", len(n)/2+2
	for _, a := range actions {
		if d := distance(n, a.Name); d < bestD {
			best, bestD = a.Name, d
		}
	}
	if best == "" {
		return ""
	}
	return " (did you mean " + best + "?)"
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := 1
			if a[i-1] == b[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
		}
		prev = cur
	}
	return prev[len(b)]
}

// CheckClashes reports two actions that answer one key at the same time:
// in the same screen and mode, or a screen's browsing key and a global
// one (except help-only globals, mode "help"). Layered keys may share
// with layered keys. The error names the action of first (the entries
// the config changed), else the later of the two.
func CheckClashes(actions []Action, first []string) error {
	for i, a := range actions {
		for _, b := range actions[i+1:] {
			if !together(a, b) || a.Layered && b.Layered {
				continue
			}
			if k, ok := sharedKey(a.B, b.B); ok {
				at, other := b, a
				if slices.Contains(first, a.Name) && !slices.Contains(first, b.Name) {
					at, other = a, b
				}
				return &KeyError{Action: at.Name, Msg: fmt.Sprintf("%q is also %s; a key does one thing at a time", k, other.Name)}
			}
		}
	}
	return nil
}

// together reports whether a and b answer at the same time.
func together(a, b Action) bool {
	if a.Mode == "help" || b.Mode == "help" {
		return false
	}
	sa, sb := a.Screen(), b.Screen()
	switch {
	case sa == sb:
		return a.Mode == b.Mode
	case sa == "global" || sb == "global":
		return a.Mode == "" && b.Mode == "" && sa != "help" && sb != "help"
	}
	return false
}

// sharedKey is a key both bindings answer, if any.
func sharedKey(a, b *key.Binding) (string, bool) {
	for _, k := range a.Keys() {
		if slices.Contains(b.Keys(), k) {
			return k, true
		}
	}
	return "", false
}

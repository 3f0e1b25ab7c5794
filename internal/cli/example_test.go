package cli

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"a2atop/internal/config"
	"a2atop/ui"
	"a2atop/ui/inbox"
	"a2atop/ui/theme"
)

// updateFlag is -update: the goldens' flag when a golden package of the
// test binary defined it (packages initialize before this one), else
// this file's own.
var updateFlag = func() *flag.Flag {
	if f := flag.Lookup("update"); f != nil {
		return f
	}
	flag.Bool("update", false, "rewrite the generated parts of config.example.toml")
	return flag.Lookup("update")
}()

// updating reports whether -update was given.
func updating() bool { return updateFlag.Value.String() == "true" }

const examplePath = "../../config.example.toml"

// exampleTokens is the generated list of colour tokens: every token of
// the palette, commented, with its light and dark values.
func exampleTokens() string {
	var b strings.Builder
	for _, tk := range theme.Tokens(theme.DefaultPalette()) {
		line := fmt.Sprintf("# %s = { light = %q, dark = %q }", tk.Name, tk.Light, tk.Dark)
		fmt.Fprintf(&b, "%-52s # %s\n", line, tk.Doc)
	}
	return b.String()
}

// exampleKeys is the generated list of actions: every action of every
// screen, commented, with its default keys, under its [keys.SCREEN].
func exampleKeys() string {
	k, ik := ui.DefaultKeyMap(), inbox.DefaultKeyMap()
	var b strings.Builder
	screen := ""
	for _, a := range append(k.Actions(), ik.Actions()...) {
		if s := a.Screen(); s != screen {
			if screen != "" {
				b.WriteByte('\n')
			}
			screen = s
			fmt.Fprintf(&b, "[keys.%s]\n", s)
		}
		_, name, _ := strings.Cut(a.Name, ".")
		keys := a.B.Keys()
		val := fmt.Sprintf("%q", keys[0])
		if len(keys) > 1 {
			q := make([]string, len(keys))
			for i, k := range keys {
				q[i] = fmt.Sprintf("%q", k)
			}
			val = "[" + strings.Join(q, ", ") + "]"
		}
		line := fmt.Sprintf("# %s = %s", name, val)
		fmt.Fprintf(&b, "%-40s # %s\n", line, a.B.Help().Desc)
	}
	return b.String()
}

// replaceBetween puts body between the lines "# BEGIN what" and "# END
// what" of s.
func replaceBetween(t *testing.T, s, what, body string) (string, string) {
	t.Helper()
	begin := strings.Index(s, "# BEGIN "+what)
	end := strings.Index(s, "# END "+what)
	if begin < 0 || end < begin {
		t.Fatalf("config.example.toml has no BEGIN/END %s markers", what)
	}
	start := begin + strings.IndexByte(s[begin:], '\n') + 1
	return s[:start] + body + s[end:], s[start:end]
}

// TestExampleListsEveryKeyAndToken: the example's lists of actions and
// colour tokens are the dashboard's own, generated from its KeyMaps and
// its palette (go test -update rewrites them), and the example with
// every one of them uncommented loads: each action and token exists.
func TestExampleListsEveryKeyAndToken(t *testing.T) {
	data, err := os.ReadFile(examplePath)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	s, tokens := replaceBetween(t, s, "colour tokens", exampleTokens())
	s, keys := replaceBetween(t, s, "keys", exampleKeys())
	if updating() {
		if err := os.WriteFile(examplePath, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	} else if tokens != exampleTokens() || keys != exampleKeys() {
		t.Fatal("config.example.toml does not list every action and colour token as the dashboard has them: go test ./internal/cli -run TestExampleListsEveryKeyAndToken -update")
	}
	// Every listed line, uncommented, is a binding the dashboard takes.
	cfg, err := config.Parse([]byte(uncommentLists(s)), examplePath)
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(cfg.KeyBinds) < 80 || len(cfg.Colors) != len(theme.Tokens(theme.DefaultPalette())) {
		t.Fatalf("uncommented, the example binds %d keys and %d colours", len(cfg.KeyBinds), len(cfg.Colors))
	}
	if _, _, err := dashboardKeys(cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := dashboardTheme(cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := dashboardViews(cfg); err != nil {
		t.Fatal(err)
	}
}

// uncommentLists uncomments the generated lines of s.
func uncommentLists(s string) string {
	var out []string
	on := false
	for _, l := range strings.Split(s, "\n") {
		switch {
		case strings.HasPrefix(l, "# BEGIN "):
			on = true
		case strings.HasPrefix(l, "# END "):
			on = false
		case on && strings.HasPrefix(l, "# "):
			l = strings.TrimPrefix(l, "# ")
			if i := strings.Index(l, " # "); i >= 0 {
				l = strings.TrimRight(l[:i], " ")
			}
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"a2atop/internal/config"
)

// loadConfig writes a config file and loads it as the dashboard would.
func loadConfig(t *testing.T, text string) *config.Config {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.toml")
	writeTestFile(t, path, text)
	cfg, err := config.Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestKeysAndThemeFromConfig: a rebinding and a colour loaded from the
// config are in effect; a clash, an unknown action, an unknown token and
// a view's bad sort are refused naming the file's line.
func TestKeysAndThemeFromConfig(t *testing.T) {
	cfg := loadConfig(t, `
[theme]
mode = "light"
accent = { light = "#005fd7", dark = "#5fafff" }
warn = "208"

[keys.tasks]
cancel = "x"
zoom = ["Z", "f2"]

[keys.inbox]
approve = "ctrl+y"
`)
	k, ik, err := dashboardKeys(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := k.TasksView.Cancel.Keys(); len(got) != 1 || got[0] != "x" || k.TasksView.Zoom.Help().Key != "Z/f2" || ik.Approve.Keys()[0] != "ctrl+y" {
		t.Fatalf("rebound keys: %v %q %v", got, k.TasksView.Zoom.Help().Key, ik.Approve.Keys())
	}
	th, err := dashboardTheme(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if th.Dark || th.Palette.Accent.Light != "#005fd7" || th.Palette.Warn.Dark != "208" {
		t.Fatalf("theme: dark %v, accent %+v, warn %+v", th.Dark, th.Palette.Accent, th.Palette.Warn)
	}

	for text, want := range map[string]string{
		"\n[keys.tasks]\ncancel = \"x\"\nzoom = \"2\"\n":         `:4: keys.tasks.zoom: "2" is also global.inbox`,
		"\n[keys.tasks]\ncancle = \"x\"\n":                       `:3: keys.tasks.cancle: no such action (did you mean tasks.cancel?)`,
		"\n[theme]\nmode = \"dark\"\naccnt = \"1\"\n":            `:4: theme.accnt: no such colour token`,
		"\n[[view]]\nname = \"x\"\nsort = \"colour\"\n":          `:4: view[1].sort: "colour": use a column`,
		"\n[[view]]\nname = \"x\"\nfilter = \"stat:failed\"\n":   `:4: view[1].filter: unknown filter key "stat" in stat:failed: use agent:NAME, state:STATE`,
		"\n[[view]]\nname = \"x\"\nfilter = \"state:waiting\"\n": `:4: view[1].filter: state:waiting names no state: use submitted`,
		"\n[[agent]]\nname = \"deployer\"\nurl = \"http://127.0.0.1:1\"\n[[view]]\nname = \"x\"\nfilter = \"agent:nosuch\"\n": `:7: view[1].filter: agent:nosuch names no agent: the agents are deployer`,
	} {
		cfg := loadConfig(t, text)
		_, _, err := dashboardKeys(cfg)
		if err == nil {
			_, err = dashboardTheme(cfg)
		}
		if err == nil {
			_, err = dashboardViews(cfg)
		}
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "config.toml") {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
	}
}

func writeTestFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

package ui

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"a2atop/approvals"
	"a2atop/ui/inbox"
)

// fullModel is the dashboard with every screen a build has (the inbox,
// the journal, the editor of new messages), so that every command is
// offered.
func fullModel(t *testing.T) *Model {
	t.Helper()
	f := fixtureFleet()
	svc, err := approvals.Open(approvals.Options{JournalPath: filepath.Join(t.TempDir(), "journal.jsonl"), Sender: benchSender{f},
		Approver: "ops@host", Now: func() time.Time { return testNow }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	views := inbox.Options{}
	m, _ := newTestModel(t, Options{Fleet: f, Inbox: inbox.InboxFactory(svc, views), Journal: inbox.JournalFactory(svc, views),
		Compose: inbox.ComposeFactory(svc, views)})
	if n := len(m.offeredCommands()); n != len(commandList()) {
		t.Fatalf("a full dashboard offers %d of the %d commands", n, len(commandList()))
	}
	return m
}

// helpText is every line the help shows, scrolled through to its end.
func helpText(m *Model) string {
	var all strings.Builder
	for range 10 {
		all.WriteString(ansi.Strip(m.View()) + "\n")
		press(m, "pgdown")
	}
	return all.String()
}

// TestHelpListsEveryCommand: ? lists every : command with its argument
// and what it does, at every size (the help scrolls when it is longer
// than the screen).
func TestHelpListsEveryCommand(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}, {200, 50}} {
		m := fullModel(t)
		sized(m, size[0], size[1])
		press(m, "?")
		text := helpText(m)
		for _, c := range commandList() {
			want := strings.TrimSpace(":" + c.name + " " + c.arg)
			if !strings.Contains(text, want) || !strings.Contains(text, c.desc) {
				t.Errorf("at %dx%d the help does not list %q (%s):\n%s", size[0], size[1], want, c.desc, text)
				break
			}
		}
	}
}

// TestTabListsTheCommands: : then tab lists every command; an ambiguous
// start lists what it could be and picks none; a unique one completes.
func TestTabListsTheCommands(t *testing.T) {
	m := fullModel(t)
	sized(m, 120, 40)
	press(m, ":", "tab")
	v := ansi.Strip(m.View())
	for _, c := range commandList() {
		if !strings.Contains(v, ":"+c.name) {
			t.Errorf(": then tab does not list :%s:\n%s", c.name, v)
		}
	}
	press(m, "esc", ":", "s", "tab")
	v = ansi.Strip(m.View())
	if got := m.prompt.value(); got != "s" {
		t.Errorf(":s then tab picked %q", got)
	}
	if !strings.Contains(v, ":sort") || !strings.Contains(v, ":state") || strings.Contains(v, ":tasks ") {
		t.Errorf(":s then tab does not list just :sort and :state:\n%s", v)
	}
	press(m, "o", "tab")
	if got := m.prompt.value(); got != "sort " {
		t.Errorf(":so then tab completed %q, want \"sort \"", got)
	}
	if v := ansi.Strip(m.View()); !strings.Contains(v, "state desc") {
		t.Errorf("after :sort tab does not list its columns:\n%s", v)
	}
	press(m, "esc")
	runLine(m, "help")
	if m.overlay != overlayHelp {
		t.Errorf(":help did not open the help: %q", m.status.text)
	}
}

// TestCommandsHiddenAsTheirKeys: read-only, or in a build without an
// inbox or an editor, the help and the list leave out the commands whose
// keys are hidden; typed anyway, they say why they do nothing.
func TestCommandsHiddenAsTheirKeys(t *testing.T) {
	m, _ := newTestModel(t, Options{ReadOnly: true})
	sized(m, 120, 40)
	press(m, ":", "tab")
	v := ansi.Strip(m.View())
	for _, name := range []string{":cancel", ":reply", ":follow-up", ":new", ":inbox"} {
		if strings.Contains(v, name) {
			t.Errorf("read-only and without an inbox, the list offers %s:\n%s", name, v)
		}
	}
	press(m, "esc")
	runLine(m, "cancel 5b1d")
	if !strings.Contains(m.status.text, "read-only") {
		t.Errorf(":cancel read-only says %q", m.status.text)
	}
}

package ui

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"

	"a2atop/approvals"
	"a2atop/ui/common"
	"a2atop/ui/inbox"
)

// inHelp reports whether groups hold a binding that answers b's keys.
func inHelp(groups [][]key.Binding, b *key.Binding) bool {
	for _, g := range groups {
		for _, h := range g {
			if slices.Equal(h.Keys(), b.Keys()) {
				return true
			}
		}
	}
	return false
}

// TestHelpListsEveryKey: the ? help of each screen, built from its
// KeyMap, lists every action of that screen's KeyMap ([keys] names them
// all) and the global ones, so that no key works unseen.
func TestHelpListsEveryKey(t *testing.T) {
	k, ik := DefaultKeyMap(), inbox.DefaultKeyMap()
	f := fixtureFleet()
	svc, err := approvals.Open(approvals.Options{JournalPath: filepath.Join(t.TempDir(), "journal.jsonl"), Sender: benchSender{f}, Approver: "ops@host"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	views := inbox.Options{KeyMap: &ik}
	m, _ := newTestModel(t, Options{Fleet: f, KeyMap: &k, Inbox: inbox.InboxFactory(svc, views), Journal: inbox.JournalFactory(svc, views),
		Compose: inbox.ComposeFactory(svc, views)})
	sized(m, 200, 50)
	// The inbox, the journal and the compose screen share the inbox's
	// KeyMap: each of its actions is in the help of one of them.
	screens := map[string][]common.Component{"tasks": {m.screens[viewTasks]}, "detail": {m.screens[viewDetail]},
		"agents": {m.screens[viewAgents]}, "inbox": {m.screens[viewInbox], m.screens[viewJournal], m.screens[viewCompose]}}
	var missing []string
	for _, a := range allActions(&k, &ik) {
		cs, ok := screens[a.Screen()]
		if !ok {
			continue
		}
		groups := [][]key.Binding{k.globalHelp()}
		for _, c := range cs {
			groups = append(groups, c.FullHelp()...)
		}
		if !inHelp(groups, a.B) {
			missing = append(missing, a.Name+" ("+a.Mode+")")
		}
	}
	if len(missing) > 0 {
		t.Errorf("the help does not list:\n%s", strings.Join(missing, "\n"))
	}
}

package ui

import (
	"errors"
	"strings"
	"testing"

	"a2atop/ui/common"
	"a2atop/ui/inbox"
)

// allActions are every key of the dashboard, the inbox's included.
func allActions(k *KeyMap, ik *inbox.KeyMap) []common.Action {
	return append(k.Actions(), ik.Actions()...)
}

// TestDefaultKeysDoNotClash: no two default keys answer at once.
func TestDefaultKeysDoNotClash(t *testing.T) {
	k, ik := DefaultKeyMap(), inbox.DefaultKeyMap()
	acts := allActions(&k, &ik)
	if err := common.CheckClashes(acts, nil); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, a := range acts {
		if seen[a.Name] {
			t.Errorf("two actions are named %s", a.Name)
		}
		seen[a.Name] = true
	}
	for _, want := range []string{"global.help", "global.views_1", "tasks.cancel", "tasks.marks_all", "tasks.sort_by_agent",
		"detail.search_next", "agents.sign_in", "inbox.approve", "inbox.marks_mark", "help.close"} {
		if !seen[want] {
			t.Errorf("no action %s", want)
		}
	}
}

// TestRebindMovesTheKeyAndItsHelp: a rebound key answers, the old one
// no longer does, and the help names the new one.
func TestRebindMovesTheKeyAndItsHelp(t *testing.T) {
	k, ik := DefaultKeyMap(), inbox.DefaultKeyMap()
	if err := common.Rebind(allActions(&k, &ik), map[string][]string{"tasks.cancel": {"x"}, "inbox.approve": {"ctrl+y", "A"}}); err == nil ||
		!strings.Contains(err.Error(), "inbox.approve") {
		t.Fatalf("A is inbox.sort_by_agent; the clash went unnoticed: %v", err)
	}
	k, ik = DefaultKeyMap(), inbox.DefaultKeyMap()
	if err := common.Rebind(allActions(&k, &ik), map[string][]string{"tasks.cancel": {"x"}, "inbox.approve": {"ctrl+y"}}); err != nil {
		t.Fatal(err)
	}
	if k.TasksView.Cancel.Help().Key != "x" || ik.Approve.Help().Key != "ctrl+y" {
		t.Fatalf("help keys %q %q", k.TasksView.Cancel.Help().Key, ik.Approve.Help().Key)
	}
	m, b := newTestModel(t, Options{KeyMap: &k})
	sized(m, 120, 40)
	press(m, "c")
	if confirming(m) {
		t.Fatal("c still cancels after tasks.cancel = \"x\"")
	}
	press(m, "x")
	if !confirming(m) {
		t.Fatal("x does not cancel")
	}
	_ = b
	press(m, "esc", "?")
	if !strings.Contains(m.View(), "x cancel task") {
		t.Fatal("the help does not name the new key")
	}
}

// TestRebindRefusals: an unknown action, an empty key and a clash with a
// global key are refused, naming the entry.
func TestRebindRefusals(t *testing.T) {
	for binds, want := range map[string]map[string][]string{
		"tasks.cancle: no such action (did you mean tasks.cancel?)": {"tasks.cancle": {"x"}},
		"tasks.cancel: give a key":                                  {"tasks.cancel": {}},
		`tasks.cancel: "2" is also global.inbox`:                    {"tasks.cancel": {"2"}},
		`detail.raw: "n" is also detail.search_next`:                {"detail.raw": {"n"}},
	} {
		k, ik := DefaultKeyMap(), inbox.DefaultKeyMap()
		err := common.Rebind(allActions(&k, &ik), want)
		var ke *common.KeyError
		if !errors.As(err, &ke) || !strings.HasPrefix(err.Error(), binds) {
			t.Errorf("Rebind(%v) = %v, want %q", want, err, binds)
		}
	}
}

// TestRebindHoldsOnEveryScreen: an action rebound on one screen has the
// new key on every screen that offers it (the detail's cancel, the
// inbox's approve), unless the config binds it there too; the help of
// each says so; a clash the new key meets on another screen names the
// entry and how to keep them apart.
func TestRebindHoldsOnEveryScreen(t *testing.T) {
	k, ik := DefaultKeyMap(), inbox.DefaultKeyMap()
	if err := common.Rebind(allActions(&k, &ik), map[string][]string{"tasks.cancel": {"x"}, "tasks.approve": {"ctrl+y"},
		"tasks.reply": {"ctrl+e"}, "detail.reply": {"e"}}); err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string]string{"detail.cancel": k.DetailView.Cancel.Help().Key, "detail.approve": k.DetailView.Approve.Help().Key,
		"inbox.approve": ik.Approve.Help().Key, "detail.reply": k.DetailView.Reply.Help().Key, "inbox.reply": ik.Reply.Help().Key} {
		want := map[string]string{"detail.cancel": "x", "detail.approve": "ctrl+y", "inbox.approve": "ctrl+y", "detail.reply": "e", "inbox.reply": "ctrl+e"}[name]
		if got != want {
			t.Errorf("%s is %q, want %q", name, got, want)
		}
	}
	m, _ := newTestModel(t, Options{KeyMap: &k})
	sized(m, 120, 40)
	press(m, "enter", "?")
	if v := m.View(); !strings.Contains(v, "x cancel task") || strings.Contains(v, "c cancel task") {
		t.Errorf("the detail's help does not name x for cancel:\n%s", v)
	}

	k, ik = DefaultKeyMap(), inbox.DefaultKeyMap()
	err := common.Rebind(allActions(&k, &ik), map[string][]string{"tasks.copy": {"J"}})
	if err == nil || !strings.HasPrefix(err.Error(), `tasks.copy: "J" (detail.copy too) is also detail.raw`) || !strings.Contains(err.Error(), "[keys.detail]") {
		t.Errorf("tasks.copy = J meets the detail's raw view: %v", err)
	}
}

package ui

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
)

// TestNotifyWhenATaskStartsWaiting: a task that enters the interrupted
// set writes an OSC 9 (or OSC 777) notification naming its agent and its
// question, and the title counts the waiting tasks; read-only writes
// none.
func TestNotifyWhenATaskStartsWaiting(t *testing.T) {
	t.Setenv("TMUX", "") // inside tmux the sequence is written twice
	for _, tc := range []struct {
		notify   Notify
		readOnly bool
		want     string
	}{
		{NotifyAuto, false, "\x1b]9;a2atop: deployer waits for you: auth-required · approve deploy of cafe123 to staging?\a"},
		{NotifyOSC777, false, "\x1b]777;notify;a2atop: deployer waits for you,auth-required · approve deploy of cafe123 to staging?\a"},
		{NotifyAuto, true, ""},
		{NotifyOff, false, ""},
	} {
		var out bytes.Buffer
		m, _ := newTestModel(t, Options{Output: &out, Notify: tc.notify, ReadOnly: tc.readOnly})
		sized(m, 120, 40)
		_, cmd := m.Update(eventsMsg{batch: []model.Event{taskEvent("deployer", "cafe1234-new", a2a.TaskStateAuthRequired, time.Second,
			"approve deploy of cafe123 to staging?")}})
		settle(m, cmd)
		// The title is written on Output too (writeTitle), not through
		// the renderer.
		title := ""
		if tc.notify.on() {
			title = "\x1b]2;a2atop · 5 waiting\a"
		}
		got := out.String()
		want := strings.Replace(tc.want, "you,auth", "you;auth", 1)
		if !strings.Contains(got, want) || !strings.Contains(got, title) || len(got) != len(want)+len(title) {
			t.Errorf("%s read-only %v wrote %q, want %q and %q", tc.notify, tc.readOnly, got, want, title)
		}
		if tc.notify.on() && m.titleCount != 5 {
			t.Errorf("the title counts %d waiting, want 5", m.titleCount)
		}
	}
}

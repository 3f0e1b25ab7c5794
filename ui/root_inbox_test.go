package ui_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/approvals"
	"a2atop/model"
	"a2atop/ui"
	"a2atop/ui/inbox"
	"a2atop/ui/internal/uitest"
	"a2atop/ui/theme"
)

// This file wires the real inbox and journal to the root as the
// dashboard does (internal/cli), with a sender that records.

// recordingSender stands in for the agents: the keys under test must
// never reach it.
type recordingSender struct {
	mu   sync.Mutex
	sent []*a2a.Message
}

func (s *recordingSender) Reply(_ context.Context, _ string, msg *a2a.Message) (*a2a.Task, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sent = append(s.sent, msg)
	return nil, nil
}

func (s *recordingSender) Get(context.Context, string, a2a.TaskID, int, bool) (*a2a.Task, error) {
	return nil, a2a.ErrTaskNotFound
}

// dashboard is the root with the real inbox and journal on a fleet of
// one deploy waiting for approval.
func dashboard(t *testing.T) (*ui.Model, *recordingSender) {
	t.Helper()
	return dashboardTo(t, io.Discard)
}

// dashboardTo is dashboard drawing the bell and OSC 52 on out, with more
// tasks waiting: "ID text" each, on the code-reviewer.
func dashboardTo(t *testing.T, out io.Writer, more ...string) (*ui.Model, *recordingSender) {
	t.Helper()
	now := time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)
	fleet := model.NewFleet(model.Options{})
	msg := a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("approve deploy of 9f3c2e1 to staging?"))
	fleet.Apply([]model.Event{{Kind: model.EventTask, Agent: "deployer", Source: model.SourceSweep, At: now, Task: &a2a.Task{
		ID: "abfc4a03-0000-4000-8000-000000000001", ContextID: "ctx", Status: a2a.TaskStatus{
			State: a2a.TaskStateAuthRequired, Message: msg, Timestamp: &now}}}})
	for i, m := range more {
		id, text, _ := strings.Cut(m, " ")
		at := now.Add(time.Duration(i+1) * time.Second)
		fleet.Apply([]model.Event{{Kind: model.EventTask, Agent: "code-reviewer", Source: model.SourceSweep, At: at, Task: &a2a.Task{
			ID: a2a.TaskID(id), ContextID: "ctx-" + id, Status: a2a.TaskStatus{State: a2a.TaskStateInputRequired,
				Message: a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart(text)), Timestamp: &at}}}})
	}
	snd := &recordingSender{}
	svc, err := approvals.Open(approvals.Options{JournalPath: filepath.Join(t.TempDir(), "journal.jsonl"), Sender: snd,
		Approver: "ops@host", Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	views := inbox.Options{Sort: model.SortAge}
	m := ui.New(ui.Options{Fleet: fleet, Output: out, Now: func() time.Time { return now },
		Theme: theme.New(theme.Options{Mode: theme.ModeDark}), Inbox: inbox.InboxFactory(svc, views),
		Journal: inbox.JournalFactory(svc, views)})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	return m, snd
}

// send hands the root a message and what its Cmds answer (not ticks).
func send(m *ui.Model, msg tea.Msg) {
	_, cmd := m.Update(msg)
	for pending := []tea.Cmd{cmd}; len(pending) > 0; pending = pending[1:] {
		for _, msg := range uitest.Run(pending[0]) {
			_, next := m.Update(msg)
			pending = append(pending, next)
		}
	}
}

// TestFilterTextNeverReachesTheInboxActions: "/dep" in the inbox, in one
// read or key by key, fills the inbox's filter; d (deny) never opens. It
// used to fire d: / did nothing there.
func TestFilterTextNeverReachesTheInboxActions(t *testing.T) {
	for _, msgs := range [][]tea.KeyMsg{
		{uitest.Key("/dep")},
		{uitest.Key("/"), uitest.Key("d"), uitest.Key("e"), uitest.Key("p")},
		{{Type: tea.KeyRunes, Runes: []rune("/dep"), Paste: true}},
	} {
		for _, view := range []string{"2", "4"} {
			m, snd := dashboard(t)
			send(m, uitest.Key(view))
			for _, msg := range msgs {
				send(m, msg)
			}
			v := m.View()
			lines := strings.Split(v, "\n")
			footer := lines[len(lines)-1]
			if strings.Contains(v, "Deny: say why") || !strings.HasPrefix(footer, "/dep") {
				t.Fatalf("view %s after %q:\n%s", view, msgs, v)
			}
			send(m, uitest.Key("enter"))
			if len(snd.sent) != 0 {
				t.Fatalf("view %s: a key typed into the filter sent %d messages", view, len(snd.sent))
			}
			if want := map[string]string{"2": "filters the inbox", "4": "filters the journal"}[view]; !strings.Contains(m.View(), want) {
				t.Fatalf("view %s: the filter line does not say %q:\n%s", view, want, m.View())
			}
		}
	}
}

// TestCopyIsOneKeyThatNeverMeansYes: Y copies the selected task's id on
// every screen that lists tasks, the inbox and the journal included; y,
// a confirmation's yes, copies nothing anywhere. y used to copy in the
// inbox, where a person may press it meaning yes.
func TestCopyIsOneKeyThatNeverMeansYes(t *testing.T) {
	const id = "abfc4a03-0000-4000-8000-000000000001"
	osc := "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(id))
	for _, view := range [][]string{{"2"}, {"1", "tab"}, {"2", "enter"}} {
		var out bytes.Buffer
		m, _ := dashboardTo(t, &out)
		for _, k := range view {
			send(m, uitest.Key(k))
		}
		send(m, uitest.Key("y"))
		if out.Len() != 0 || strings.Contains(m.View(), "copied") {
			t.Fatalf("after %v, y wrote %q", view, out.String())
		}
		send(m, uitest.Key("Y"))
		if !strings.Contains(out.String(), osc) || !strings.Contains(m.View(), "copied "+id) {
			t.Fatalf("after %v, Y wrote %q:\n%s", view, out.String(), m.View())
		}
		send(m, uitest.Key("?"))
		if v := m.View(); !strings.Contains(v, "Y") || !strings.Contains(v, "copy id") {
			t.Fatalf("after %v the help does not list Y copy id:\n%s", view, v)
		}
	}
}

// TestClickLandsOnTheRowUnderThePointerWithANoticeShowing: notices are
// in the footer, so a notice showing moves no row: a click selects the
// row under the pointer. The inbox's notice line used to push its list
// down a row, so a click landed on the neighbour.
func TestClickLandsOnTheRowUnderThePointerWithANoticeShowing(t *testing.T) {
	m, _ := dashboardTo(t, io.Discard, "aaaa0001 first question?", "bbbb0002 second question?", "cccc0003 third question?")
	send(m, uitest.Key("2"))
	send(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("x"), Paste: true}) // a notice: the paste went nowhere
	v := m.View()
	lines := strings.Split(v, "\n")
	if !strings.Contains(lines[len(lines)-1], "paste") {
		t.Fatalf("no notice in the footer:\n%s", v)
	}
	y := -1
	for i, l := range lines {
		if strings.Contains(l, "bbbb0002") && strings.Contains(l, "second question?") {
			y = i
		}
	}
	send(m, tea.MouseMsg{X: 10, Y: y, Action: tea.MouseActionPress, Button: tea.MouseButtonLeft})
	v = m.View()
	if row := strings.Split(v, "\n")[y]; !strings.HasPrefix(row, "▸") || !strings.Contains(row, "bbbb0002") {
		t.Fatalf("a click on line %d selects:\n%s", y, v)
	}
}

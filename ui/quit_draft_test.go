package ui_test

import (
	"io"
	"path/filepath"
	"reflect"
	"strings"
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

// runSequence runs cmd as the program would a tea.Sequence: each Cmd
// to its end, in order; it returns the messages.
func runSequence(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if v := reflect.ValueOf(msg); v.Kind() == reflect.Slice && v.Type().Elem() == reflect.TypeOf(tea.Cmd(nil)) {
		var out []tea.Msg
		for i := range v.Len() {
			out = append(out, runSequence(v.Index(i).Interface().(tea.Cmd))...)
		}
		return out
	}
	return []tea.Msg{msg}
}

// TestCtrlCKeepsTheReplyBeingWritten: ctrl+c with the inbox's reply
// editor open quits only once the text typed is in the drafts file; a
// dashboard started again has it. It quit at once and the text was lost.
func TestCtrlCKeepsTheReplyBeingWritten(t *testing.T) {
	now := time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	start := func() (*ui.Model, *approvals.Service) {
		fleet := model.NewFleet(model.Options{})
		fleet.Apply([]model.Event{{Kind: model.EventTask, Agent: "code-reviewer", Source: model.SourceSweep, At: now, Task: &a2a.Task{
			ID: "7d2a9e44-0000-4000-8000-000000000003", ContextID: "ctx", Status: a2a.TaskStatus{State: a2a.TaskStateInputRequired,
				Message: a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("Which branch?")), Timestamp: &now}}}})
		svc, err := approvals.Open(approvals.Options{JournalPath: path, Sender: &recordingSender{}, Approver: "ops@host", Now: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { svc.Close() })
		views := inbox.Options{Sort: model.SortAge}
		m := ui.New(ui.Options{Fleet: fleet, Output: io.Discard, Now: func() time.Time { return now },
			Theme: theme.New(theme.Options{Mode: theme.ModeDark}), Inbox: inbox.InboxFactory(svc, views), Journal: inbox.JournalFactory(svc, views)})
		m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		return m, svc
	}
	m, svc := start()
	for _, k := range []string{"2", "r", "m", "a", "i", "n"} {
		send(m, uitest.Key(k))
	}
	_, cmd := m.Update(uitest.Key("ctrl+c"))
	msgs := runSequence(cmd)
	if len(msgs) == 0 {
		t.Fatal("ctrl+c returned nothing")
	}
	if _, ok := msgs[len(msgs)-1].(tea.QuitMsg); !ok {
		t.Fatalf("ctrl+c's last message is %T, want it to quit", msgs[len(msgs)-1])
	}
	ds, err := svc.Drafts()
	if err != nil || len(ds) != 1 || ds[0].Text != "main" {
		t.Fatalf("after ctrl+c the drafts file holds %+v (%v), want the reply typed", ds, err)
	}
	m2, _ := start()
	send(m2, uitest.Key("2"))
	send(m2, uitest.Key("r"))
	if v := m2.View(); !strings.Contains(v, "main") {
		t.Fatalf("started again, r shows no draft:\n%s", v)
	}
}

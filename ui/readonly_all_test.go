package ui

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/approvals"
	"a2atop/model"
	"a2atop/ui/inbox"
)

// countingSender is the agents as the approvals service reaches them:
// it counts what would have been sent.
type countingSender struct {
	benchSender
	mu   sync.Mutex
	sent int
}

func (s *countingSender) Reply(ctx context.Context, agent string, msg *a2a.Message) (*a2a.Task, error) {
	s.mu.Lock()
	s.sent++
	s.mu.Unlock()
	return s.benchSender.Reply(ctx, agent, msg)
}

// TestReadOnlyWritesNothing: in --read-only every key and command that
// would write to an agent, on every screen, sends nothing (counted at the
// backend and the approvals' sender), and no screen's ? help offers one:
// cancel, reply, approve, deny, follow-up, a new message, marking, the
// journal's reconcile, send again and follow-up, and :cancel, :reply,
// :follow-up and :new.
func TestReadOnlyWritesNothing(t *testing.T) {
	f := fixtureFleet()
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	// A journal with a decision on it, written before: the journal view
	// then has a row its send again and follow-up would act on.
	w, err := approvals.Open(approvals.Options{JournalPath: path, Sender: benchSender{f}, Approver: "ops@host"})
	if err != nil {
		t.Fatal(err)
	}
	journalDecisions(t, w, f, 1)
	w.Close()
	snd := &countingSender{benchSender: benchSender{f}}
	clk := newClock()
	svc, err := approvals.Open(approvals.Options{JournalPath: path, Sender: snd, Approver: "ops@host", ReadOnly: true,
		Now: clk.Now, QuietPeriod: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	views := inbox.Options{Sort: model.SortAge}
	m, b := newTestModel(t, Options{Fleet: f, ReadOnly: true, Now: clk.Now, QuietPeriod: 100 * time.Millisecond, Inbox: inbox.InboxFactory(svc, views),
		Journal: inbox.JournalFactory(svc, views), Compose: inbox.ComposeFactory(svc, views)})
	sized(m, 200, 50)

	// "+" is a second later: a confirmation is armed by then.
	keys := func(ks ...string) {
		for _, k := range ks {
			if k == "+" {
				clk.add(time.Second)
				continue
			}
			press(m, k)
		}
	}
	writes := []string{"space", "*", "c", "+", "y", "a", "+", "y", "d", "w", "h", "y", "enter", "+", "y",
		"r", "o", "k", "ctrl+s", "+", "y", "esc", "f", "o", "k", "ctrl+s", "+", "y", "esc", "n", "enter", "h", "i", "ctrl+s", "+", "y", "esc"}
	for _, step := range []struct {
		name string
		to   []string
		keys []string
	}{
		{"tasks, each pane", nil, writes},
		{"tasks, interrupted", []string{"1", "tab"}, writes},
		{"tasks, terminal", []string{"1", "tab", "tab"}, writes},
		{"detail", []string{"1", "tab", "enter"}, writes},
		{"detail of an ended task", []string{"esc", "1", "tab", "tab", "enter"}, writes},
		{"agents", []string{"esc", "3"}, []string{"n", "enter", "h", "i", "ctrl+s", "+", "y", "esc"}},
		{"inbox", []string{"esc", "2"}, writes},
		{"inbox, the next", []string{"esc", "2", "j"}, writes},
		{"journal", []string{"esc", "4"}, []string{"R", "s", "+", "y", "esc", "f", "o", "k", "ctrl+s", "+", "y", "esc"}},
	} {
		press(m, step.to...)
		keys(step.keys...)
		press(m, "esc", "esc")
		if snd.sent != 0 || len(b.cancels) != 0 {
			t.Fatalf("%s: %v sent %d decisions and %d cancels in read-only", step.name, step.keys, snd.sent, len(b.cancels))
		}
		press(m, step.to...)
		press(m, "?")
		help := m.View()
		for _, word := range []string{"cancel task", "reply", "approve", "deny", "follow-up", "new message", "mark", "reconcile", "send again"} {
			if strings.Contains(help, word) {
				t.Errorf("%s: the read-only help offers %q:\n%s", step.name, word, help)
			}
		}
		press(m, "esc")
	}
	press(m, "esc", "1")
	for _, line := range []string{"cancel " + string(idRunning), "reply " + string(idQuestion), "follow-up " + string(idPassed),
		"new deployer"} {
		runLine(m, line)
		keys("o", "k", "ctrl+s", "+", "y", "esc", "esc")
		if snd.sent != 0 || len(b.cancels) != 0 {
			t.Fatalf(":%s sent %d decisions and %d cancels in read-only", line, snd.sent, len(b.cancels))
		}
		if !m.status.err || !strings.Contains(m.status.text, "read-only") {
			t.Errorf(":%s says %q, want why: read-only", line, m.status.text)
		}
	}
}

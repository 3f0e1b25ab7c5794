package ui

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"

	"a2atop/approvals"
	"a2atop/model"
	"a2atop/ui/inbox"
	"a2atop/ui/internal/uitest"
)

// journalAgents are the fixture's agents as the journal knows them.
func journalAgents() []approvals.Agent {
	var out []approvals.Agent
	for _, a := range fixtureAgents {
		out = append(out, approvals.Agent{Name: a.name, URL: a.url})
	}
	return out
}

// openJournal opens the journal at path as the dashboard does.
func openJournal(t testing.TB, path string) *approvals.Service {
	t.Helper()
	svc, err := approvals.Open(approvals.Options{JournalPath: path, Approver: "ops@host", Agents: journalAgents(),
		Now: func() time.Time { return testNow }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return svc
}

// damagedJournal is a journal of two records on the deployer whose
// second line had one byte changed: it may hold a decision, so decisions
// on the deployer are refused.
func damagedJournal(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	svc := openJournal(t, path)
	for _, note := range []string{"first", "second"} {
		if err := svc.NoteLeft("deployer", idDeploy, a2a.TaskStateAuthRequired, a2a.TaskStateWorking, note); err != nil {
			t.Fatal(err)
		}
	}
	svc.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.LastIndex(b, []byte("second"))
	b[i] = 'S'
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// withJournal is the dashboard on the fixture with the real inbox and
// journal over the journal at path, followed by the root.
func withJournal(t testing.TB, path string, o Options) *Model {
	t.Helper()
	svc := openJournal(t, path)
	views := inbox.Options{Sort: model.SortAge}
	o.Approvals, o.Inbox, o.Journal = svc, inbox.InboxFactory(svc, views), inbox.JournalFactory(svc, views)
	m, _ := newTestModel(t, o)
	return m
}

const bannerWords = "decisions on deployer are refused until an operator looks: journal.jsonl line 2 is damaged — run a2atop journal check"

// TestGoldenDamagedJournal: the banner of a damaged journal at every
// size, on the tasks view and in the inbox (which hides the deployer's
// answers and says why).
func TestGoldenDamagedJournal(t *testing.T) {
	for _, sc := range []struct {
		name string
		keys []string
		wait string
	}{
		{"tasks", nil, "Terminal 3"},
		{"inbox", []string{"2", "j", "j"}, "Inbox ·"},
	} {
		for _, sz := range goldenSizes {
			t.Run(fmt.Sprintf("%s_%dx%d", sc.name, sz[0], sz[1]), func(t *testing.T) {
				m := withJournal(t, damagedJournal(t), Options{})
				tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(sz[0], sz[1]))
				for _, k := range sc.keys {
					tm.Send(uitest.Key(k))
				}
				out := uitest.Frame(t, tm, sc.wait, sz[0], sz[1], true)
				golden.RequireEqual(t, []byte(out))
			})
		}
	}
}

// TestTheBannerShowsOnEveryScreen: while a damaged line refuses
// decisions, every screen has the banner under the header, naming the
// file, the line and the agent, and the body one line less; the inbox
// offers no answer to the deployer (and says why when one is pressed)
// while the code-reviewer's question still takes one. Nothing used to say
// it: the refusal came only from the send.
func TestTheBannerShowsOnEveryScreen(t *testing.T) {
	m := sized(withJournal(t, damagedJournal(t), Options{}), 200, 50)
	for _, step := range []struct {
		name string
		keys []string
	}{
		{"tasks", nil}, {"detail", []string{"enter"}}, {"agents", []string{"esc", "3"}},
		{"inbox", []string{"2"}}, {"journal", []string{"4"}}, {"help", []string{"?"}},
	} {
		press(m, step.keys...)
		lines := strings.Split(m.View(), "\n")
		if len(lines) != 50 || lines[1] != bannerWords {
			t.Fatalf("%s: %d lines, the second %q:\n%s", step.name, len(lines), lines[1], m.View())
		}
		if h := m.bodyHeight(); h != 47 {
			t.Fatalf("%s: the body has %d lines, want 47", step.name, h)
		}
	}
	press(m, "esc", "2")
	ib := m.screens[viewInbox]
	for _, tc := range []struct {
		keys    []string
		task    string
		answers bool
	}{
		{nil, "legacy-intake", true},
		{[]string{"j"}, "planner", false}, // the root of the deployer's chain
		{[]string{"j"}, "deployer", false},
		{[]string{"j"}, "code-reviewer", true},
	} {
		press(m, tc.keys...)
		keys := " " + helpKeysOf(ib.ShortHelp()) + " "
		if got := strings.Contains(keys, " r ") || strings.Contains(keys, " a ") || strings.Contains(keys, " d "); got != tc.answers {
			t.Errorf("%s: the footer offers %q", tc.task, keys)
		}
	}
	press(m, "k")
	for _, k := range []string{"a", "d", "r"} {
		press(m, k)
		if f := footerOf(m); !strings.HasPrefix(f, "decisions on deployer") || !strings.Contains(f, "journal.jsonl line 2") || ib.(interface{ Capturing() bool }).Capturing() {
			t.Fatalf("%s on the deployer: the footer says %q", k, f)
		}
	}
}

// helpKeysOf is the keys of the enabled bindings, space-separated.
func helpKeysOf(bs []key.Binding) string {
	var out []string
	for _, b := range bs {
		if b.Enabled() {
			out = append(out, b.Help().Key)
		}
	}
	return strings.Join(out, " ")
}

// TestTheBannerComesAndGoesWithTheJournal: the dashboard runs on a sound
// journal; another process's write is damaged (a line that does not
// read back). On the next tick the banner shows and the screens get one
// line less; once an operator accepts the line (a2atop journal check
// --accept, another process), the banner goes and the line comes back.
func TestTheBannerComesAndGoesWithTheJournal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	other := openJournal(t, path)
	if err := other.NoteLeft("deployer", idDeploy, a2a.TaskStateAuthRequired, a2a.TaskStateWorking, "first"); err != nil {
		t.Fatal(err)
	}
	m := sized(withJournal(t, path, Options{}), 120, 40)
	if v := m.View(); strings.Contains(v, "damaged") || m.bodyHeight() != 38 {
		t.Fatalf("a sound journal: body %d lines:\n%s", m.bodyHeight(), v)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"v":2,"type":"decision","agent":"deployer","task":"` + string(idDeploy) + `","sum":"00000000"}` + "\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	tickNow(m)
	lines := strings.Split(m.View(), "\n")
	if !strings.Contains(lines[1], "journal.jsonl line 2 is damaged") || m.bodyHeight() != 37 || len(lines) != 40 {
		t.Fatalf("after the damaged write: body %d lines, line 2 %q", m.bodyHeight(), lines[1])
	}
	if _, err := other.Refresh(); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Accept(2, "looked: a test's line"); err != nil {
		t.Fatal(err)
	}
	tickNow(m)
	if v := m.View(); strings.Contains(v, "damaged") || m.bodyHeight() != 38 {
		t.Fatalf("after the line was accepted: body %d lines:\n%s", m.bodyHeight(), v)
	}
}

// tickNow hands the root the clock's tick and runs what it starts (the
// read of the journal), as the program would.
func tickNow(m *Model) {
	_, cmd := m.Update(tickMsg{now: testNow})
	settle(m, cmd)
}

// TestAClickUnderTheBannerLandsOnItsRow: the banner pushes the body a
// line down; a click selects the row drawn under the pointer.
func TestAClickUnderTheBannerLandsOnItsRow(t *testing.T) {
	m := sized(withJournal(t, damagedJournal(t), Options{}), 120, 40)
	press(m, "2")
	y := -1
	for i, l := range strings.Split(m.View(), "\n") {
		if strings.Contains(l, "c0de4e71") && strings.Contains(l, "Which branch") {
			y = i
		}
	}
	m.Update(tea.MouseMsg{X: 10, Y: y, Action: tea.MouseActionPress, Button: tea.MouseButtonLeft})
	if row := strings.Split(m.View(), "\n")[y]; !strings.HasPrefix(row, "▸") {
		t.Fatalf("a click on line %d selects:\n%s", y, m.View())
	}
}

// TestTheTasksViewOffersNoReplyToABlockedAgent: r on a task of an agent
// a damaged journal line blocks is not offered in the tasks view or the
// detail, and pressed says why, where it was pressed, instead of opening
// the inbox's editor.
func TestTheTasksViewOffersNoReplyToABlockedAgent(t *testing.T) {
	m := sized(withJournal(t, damagedJournal(t), Options{}), 200, 50)
	press(m, "tab") // the Interrupted pane: the code-reviewer's question first
	for _, step := range []struct {
		keys    []string
		task    string
		offered bool
	}{
		{nil, "code-reviewer", true}, {[]string{"j"}, "deployer", false}, {[]string{"enter"}, "deployer's detail", false},
	} {
		press(m, step.keys...)
		keys := " " + helpKeysOf(m.screens[m.view].ShortHelp()) + " "
		if strings.Contains(keys, " r ") != step.offered {
			t.Fatalf("%s: the footer offers %q", step.task, keys)
		}
	}
	press(m, "r")
	if f := footerOf(m); m.view != viewDetail || !strings.Contains(f, "no decisions on deployer") {
		t.Fatalf("r on the deployer's task: view %d, footer %q", m.view, f)
	}
}

package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"a2atop/approvals"
	"a2atop/hubclient"
	"a2atop/model"
)

// program runs a dashboard as Bubble Tea would, but on the test's
// goroutine: each Cmd runs on its own goroutine and its message is
// handed to Update, then View, when the test drains; the clock's own Cmd
// is left out (the test plays the clock, as in
// TestTheClockWakesOnlyWhenThePictureChanges).
type program struct {
	m     *Model
	clk   *clock
	msgs  chan tea.Msg
	ticks int // the clock's wakes
}

func newProgram(m *Model, clk *clock) *program {
	p := &program{m: m, clk: clk, msgs: make(chan tea.Msg, 4096)}
	m.alarm.waiting = true
	p.start(m.Init())
	m.View()
	return p
}

func (p *program) start(cmd tea.Cmd) {
	if cmd != nil {
		go func() { p.msgs <- cmd() }()
	}
}

func (p *program) handle(msg tea.Msg) {
	switch msg := msg.(type) {
	case nil, tea.QuitMsg:
		return
	case tea.BatchMsg:
		for _, c := range msg {
			p.start(c)
		}
		return
	}
	_, cmd := p.m.Update(msg)
	p.start(cmd)
	p.m.View()
}

// drain handles every message that came.
func (p *program) drain() {
	for {
		select {
		case msg := <-p.msgs:
			p.handle(msg)
		default:
			return
		}
	}
}

// rest moves the clock d on, second by second, waking the dashboard's
// clock when it asked to and handing it what its Cmds answered.
func (p *program) rest(d time.Duration) {
	end := p.clk.Now().Add(d)
	for now := p.clk.Now(); now.Before(end); {
		p.drain()
		next := now.Truncate(time.Second).Add(time.Second)
		for at := p.m.alarm.next(); !at.IsZero() && !at.After(next); at = p.m.alarm.next() {
			if p.ticks++; p.ticks > 10_000 {
				return
			}
			if at.After(now) {
				now = at
			}
			p.clk.set(now)
			p.handle(tickMsg{now: now})
			p.drain()
		}
		now = next
		p.clk.set(now)
	}
}

// shows waits (by the test's deadline, the clock standing still) until
// the screen shows what ok looks for, handing the dashboard only what
// its own Cmds answer: a change the hub says reaches the screen without
// the clock.
func (p *program) shows(t *testing.T, what string, ok func(frame string) bool) {
	t.Helper()
	ticks := p.ticks
	deadline := time.Now().Add(10 * time.Second)
	for !ok(p.m.View()) {
		if time.Now().After(deadline) {
			t.Fatalf("never on screen without the clock: %s; the screen:\n%s", what, p.m.View())
		}
		time.Sleep(5 * time.Millisecond)
		p.drain()
	}
	if p.ticks != ticks {
		t.Fatalf("the clock woke while waiting for %s", what)
	}
}

// answerThroughTheHub answers the task as operator cl, through the hub
// (journaled there; the send may fail: the fixture's agents are names).
func answerThroughTheHub(t *testing.T, cl *hubclient.Client, now func() time.Time, task *model.Task, text string) {
	t.Helper()
	svc, err := cl.OpenService(approvals.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	d, err := svc.Prepare(svc.ItemFor(task), approvals.Input{Kind: approvals.KindReply, Text: text})
	if err != nil {
		t.Fatal(err)
	}
	out := svc.Send(context.Background(), d)
	t.Logf("carol's answer: %s %v", out.Result, out.Err)
}

func (c *clock) set(t time.Time) { c.mu.Lock(); c.now = t; c.mu.Unlock() }

// TestTheClockSleepsAttachedToAHub: a dashboard attached to a real hub
// over loopback, on its inbox, at rest for ten simulated minutes wakes
// only for the ages it shows, not every second; and what the hub says
// still reaches the screen at once, without the clock: a claim another
// operator takes, the hub going away (the banner) and coming back (the
// banner gone, the footer says so).
func TestTheClockSleepsAttachedToAHub(t *testing.T) {
	clk := newClock()
	th := newTeamHub(t, clk)
	m, _ := th.dashboard("alice")
	sized(m, 160, 40)
	press(m, "2")
	p := newProgram(m, clk)
	p.rest(10 * time.Minute)
	t.Logf("attached, at rest: the clock woke %d times in 10 simulated minutes (%d frames drawn)", p.ticks, m.renders)
	if p.ticks > 100 {
		t.Errorf("attached to a hub at rest, the clock woke %d times in 10 minutes, want at most 100 (the inbox's ages change once a minute)", p.ticks)
	}

	carol := th.operator("carol")
	th.run(carol, nil)
	if err := carol.Claim(context.Background(), "code-reviewer", idQuestion, "answering"); err != nil {
		t.Fatal(err)
	}
	p.shows(t, "carol's claim on the inbox's row", func(f string) bool { return strings.Contains(f, "carol is answering") })

	th.stop()
	p.shows(t, "the banner of the hub gone", func(f string) bool { return strings.Contains(f, "hub "+th.url()+" unreachable since") })
	th.restart()
	p.shows(t, "the hub back", func(f string) bool {
		return !strings.Contains(f, "unreachable since") && strings.Contains(footerOf(m), "the hub at "+th.url()+" is back after")
	})
	if err := carol.Release(context.Background(), "code-reviewer", idQuestion); err != nil {
		t.Fatal(err)
	}
	p.shows(t, "carol's claim gone", func(f string) bool { return !strings.Contains(f, "carol is answering") })

	// carol answers the question through the hub: the line the hub
	// journals comes to alice's journal view with the hub's feed.
	press(m, "4")
	answerThroughTheHub(t, carol, clk.Now, m.ctx.Fleet.Task(model.TaskKey{Agent: "code-reviewer", ID: idQuestion}), "main")
	p.shows(t, "carol's answer in alice's journal", func(f string) bool { return strings.Contains(f, "carol") && strings.Contains(f, `"main"`) })
	t.Logf("%d frames drawn in all", m.renders)
}

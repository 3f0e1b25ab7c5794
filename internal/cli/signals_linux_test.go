package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"golang.org/x/sys/unix"

	"a2atop/demo"
	"a2atop/internal/agenttest"
	"a2atop/internal/ptytest"
	"a2atop/model"
)

// envCommandChild carries the command line TestCommandChild runs.
const envCommandChild = "A2ATOP_TEST_COMMAND_CHILD"

// TestCommandChild is a2atop as main runs it (SignalContext, then Main)
// with the command line its parent gives, in a process of its own. It
// does nothing unless a parent started it.
func TestCommandChild(t *testing.T) {
	args := os.Getenv(envCommandChild)
	if args == "" {
		t.Skip("runs only as the a2atop process of TestEveryCommandEndsOnEverySignal")
	}
	ctx, stop := SignalContext(context.Background())
	code := Main(ctx, strings.Split(args, "\x1f"), Streams{Out: os.Stdout, Err: os.Stderr})
	stop()
	os.Exit(code)
}

// termProc is one a2atop process on a pseudo-terminal of its own, its
// session leader with the terminal as its controlling one, as in a tmux
// pane.
type termProc struct {
	cmd    *exec.Cmd
	master *os.File
	slave  *os.File
	out    syncBuffer // everything the process wrote to the terminal
	stderr syncBuffer
	read   chan struct{}
	exited chan struct{}
	err    error
	silent bool // answers no query (see startOnSilentTerminal)
}

// startOnTerminal runs `a2atop args...` on a new 120x40 terminal.
func startOnTerminal(t *testing.T, env []string, args ...string) *termProc {
	t.Helper()
	return startTerminal(t, false, env, args...)
}

// startOnSilentTerminal is startOnTerminal on a terminal that answers
// no query (as some serial consoles and pty harnesses): what the test
// writes to p.master is all that comes back.
func startOnSilentTerminal(t *testing.T, env []string, args ...string) *termProc {
	t.Helper()
	return startTerminal(t, true, env, args...)
}

func startTerminal(t *testing.T, silent bool, env []string, args ...string) *termProc {
	t.Helper()
	master, slave := ptytest.Open(t, 120, 40)
	p := &termProc{master: master, slave: slave, read: make(chan struct{}), exited: make(chan struct{}), silent: silent}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCommandChild$", "-test.count=1")
	p.cmd = cmd
	cmd.Env = append(append(os.Environ(), envCommandChild+"="+strings.Join(args, "\x1f")), env...)
	// stderr apart: what a process that will not end says of itself
	// (its goroutines, on SIGQUIT) outlives its terminal.
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, &p.stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go p.readTerminal()
	go func() { p.err = cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.exited
		slave.Close()
		master.Close()
	})
	return p
}

// readTerminal copies what the process writes to the terminal into
// p.out, answering its queries, until every slave end is closed (EIO)
// or the master is.
func (p *termProc) readTerminal() {
	defer close(p.read)
	buf := make([]byte, 64<<10)
	for {
		n, err := p.master.Read(buf)
		if n > 0 {
			_, _ = p.out.Write(buf[:n])
			p.answerQueries(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

// answerQueries answers what a program asks its terminal, as a terminal
// does: the background colour (OSC 11) and the cursor position (DSR 6).
// Unanswered, each costs the asker a timeout of seconds.
func (p *termProc) answerQueries(b []byte) {
	if p.silent {
		return
	}
	if bytes.Contains(b, []byte("\x1b]11;?")) {
		_, _ = p.master.WriteString("\x1b]11;rgb:0000/0000/0000\x1b\\")
	}
	if bytes.Contains(b, []byte("\x1b[6n")) {
		_, _ = p.master.WriteString("\x1b[1;1R")
	}
}

// waitOutput waits until the terminal shows every one of wants.
func (p *termProc) waitOutput(t *testing.T, wants ...string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		s := p.out.String() + p.stderr.String()
		plain := ansi.Strip(s)
		missing := ""
		for _, w := range wants {
			if !strings.Contains(s, w) && !strings.Contains(plain, w) {
				missing = w
				break
			}
		}
		if missing == "" {
			return
		}
		select {
		case <-p.exited:
			t.Fatalf("a2atop ended (%v) before the terminal showed %q; it showed:\n%s", p.err, missing, tail(s))
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			_ = p.cmd.Process.Signal(syscall.SIGQUIT) // its goroutines, on stderr
			<-p.exited
			t.Fatalf("the terminal never showed %q; it showed:\n%s\nits stderr:\n%s", missing, tail(s), p.stderr.String())
		}
	}
}

// typeKeys writes keys to the terminal as a person types them.
func (p *termProc) typeKeys(t *testing.T, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if _, err := p.master.WriteString(k); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond) // one key at a time, not one paste
	}
}

// stop sends sig (0: closes the terminal, as tmux does when its pane
// closes) and waits for the process to end, at most a generous bound;
// it returns how long that took.
func (p *termProc) stop(t *testing.T, sig syscall.Signal) time.Duration {
	t.Helper()
	start := time.Now()
	if sig == 0 {
		p.master.Close() // as tmux does when its pane closes
	} else if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.exited:
	case <-time.After(20 * time.Second):
		_ = p.cmd.Process.Signal(syscall.SIGQUIT) // its goroutines, on stderr
		<-p.exited
		t.Fatalf("a2atop was still running 20s after %s; the terminal showed:\n%s\nits stderr:\n%s", signalName(sig), tail(p.out.String()), p.stderr.String())
	}
	took := time.Since(start)
	var ee *exec.ExitError
	if p.err != nil && !errors.As(p.err, &ee) {
		t.Fatal(p.err)
	}
	if code := p.cmd.ProcessState.ExitCode(); code != exitOK {
		t.Errorf("a2atop ended with status %d (%s) after %s, want 0; the terminal showed:\n%s", code, p.cmd.ProcessState, signalName(sig), tail(p.out.String()))
	}
	return took
}

// restored checks that a screen program left the terminal as it found
// it: out of the alternate screen, the cursor shown, the mouse off, the
// line discipline cooked again (echo, line editing).
func (p *termProc) restored(t *testing.T) {
	t.Helper()
	tios, err := unix.IoctlGetTermios(int(p.slave.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	if tios.Lflag&unix.ICANON == 0 || tios.Lflag&unix.ECHO == 0 {
		t.Errorf("the terminal was left in raw mode (lflag %#x)", tios.Lflag)
	}
	p.slave.Close() // the reader ends once every slave is closed
	select {
	case <-p.read:
	case <-time.After(5 * time.Second):
		t.Fatal("the terminal's output never ended")
	}
	s := p.out.String()
	enter := strings.LastIndex(s, "\x1b[?1049h")
	if enter < 0 {
		t.Fatalf("the dashboard never entered the alternate screen:\n%s", tail(s))
	}
	after := s[enter:]
	for _, want := range []struct{ seq, what string }{
		{"\x1b[?1049l", "the alternate screen left"},
		{"\x1b[?25h", "the cursor shown"},
		{"\x1b[?1002l", "the mouse released"},
		{"\x1b[?1006l", "the mouse's SGR mode off"},
	} {
		if !strings.Contains(after, want.seq) {
			t.Errorf("after the signal, the terminal never saw %s (%q); its last output:\n%q", want.what, want.seq, tail(after))
		}
	}
}

func signalName(sig syscall.Signal) string {
	if sig == 0 {
		return "the terminal closed"
	}
	return unix.SignalName(sig)
}

// tail is the end of a terminal's output, for a failure message.
func tail(s string) string {
	if len(s) > 2000 {
		return "…" + s[len(s)-2000:]
	}
	return s
}

// everySignal is what ends a run: SIGTERM, SIGINT and SIGHUP sent by
// process id, and (0) the terminal closing under it.
var everySignal = []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, 0}

// TestEveryCommandEndsOnEverySignal runs each long-running command as a
// process of its own on a terminal, sends it each signal that ends a
// run (twice each, for the races between who handles it; once under the
// race detector) and checks
// that it ends, with status 0, soon; a dashboard leaves the terminal
// as it found it. Each exit time is logged.
func TestEveryCommandEndsOnEverySignal(t *testing.T) {
	if testing.Short() {
		t.Skip("starts some fifty processes")
	}
	dir := isolate(t)
	ag := agenttest.StartAgent(t)
	ag.Start("deploy")
	agents := []demo.Agent{{Name: "deployer", URL: ag.URL}}
	hubURL := startHub(t, writeHubConfig(t, dir, agents, 200*time.Millisecond))
	alice := []string{"A2ATOP_HUB_TOKEN=" + tokenOf("alice")}
	type command struct {
		name   string
		env    []string
		args   []string
		ready  []string
		screen bool // a dashboard: the terminal must be restored
	}
	commands := []command{
		{"dashboard", nil, []string{ag.URL}, []string{"\x1b[?1049h", "interrupted"}, true},
		{"dashboard on a hub", alice, []string{"--hub", hubURL}, []string{"\x1b[?1049h", "operator alice"}, true},
		{"dashboard waiting for its hub", alice, []string{"--hub", "http://" + freeAddr(t)}, []string{"\x1b[?1049h", "waiting for it"}, true},
		{"watch", nil, []string{"watch", "--jsonl", ag.URL}, []string{`"kind":`}, false},
		{"watch on a hub", alice, []string{"watch", "--jsonl", "--hub", hubURL}, []string{`"kind":`}, false},
		{"serve", nil, []string{"serve", "--config", writeHubConfig(t, t.TempDir(), agents, 200*time.Millisecond), "--listen", "127.0.0.1:0"}, []string{"hub on http"}, false},
		{"demo", nil, []string{"demo"}, []string{"\x1b[?1049h", "deployer"}, true},
		{"demo --agents-only", nil, []string{"demo", "--agents-only"}, []string{"serving the agents above"}, false},
		{"demo --hub at its prompt", nil, []string{"demo", "--hub"}, []string{"Press Enter"}, false},
		{"demo --hub", nil, []string{"demo", "--hub"}, []string{"Press Enter"}, true},
	}
	rounds := 2
	if raceEnabled {
		rounds = 1 // the second round is for timing races, which the plain run has; this one looks for data races
	}
	for _, c := range commands {
		for _, sig := range everySignal {
			if sig == 0 && !c.screen {
				continue
			}
			for round := range rounds {
				name := fmt.Sprintf("%s/%s/%d", c.name, signalName(sig), round)
				t.Run(name, func(t *testing.T) {
					started := time.Now()
					p := startOnTerminal(t, c.env, c.args...)
					p.waitOutput(t, c.ready...)
					t.Logf("%s: ready after %s", c.name, time.Since(started).Round(time.Millisecond))
					if c.name == "demo --hub" {
						p.typeKeys(t, "\r")
						p.waitOutput(t, "operator alice")
					}
					time.Sleep(300 * time.Millisecond) // running, not starting
					took := p.stop(t, sig)
					t.Logf("%s: ended %s after %s", c.name, took.Round(time.Millisecond), signalName(sig))
					if c.screen && sig != 0 {
						p.restored(t)
					}
				})
			}
		}
	}
}

// TestDashboardOnAHubReleasesItsClaimsOnEverySignal: alice's dashboard,
// attached to a hub, has the approval of a deploy open (the team sees
// "alice is approving"); whatever ends it, a signal or its terminal
// closing, the team sees the claim go at once, not when it expires
// two minutes later.
func TestDashboardOnAHubReleasesItsClaimsOnEverySignal(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process per signal")
	}
	dir := isolate(t)
	ag := agenttest.StartAgent(t)
	agents := []demo.Agent{{Name: "deployer", URL: ag.URL}}
	hubURL := startHub(t, writeHubConfig(t, dir, agents, 200*time.Millisecond))
	bob := attachHeadless(t, hubURL, "bob")
	for _, sig := range everySignal {
		t.Run(signalName(sig), func(t *testing.T) {
			id := ag.Start("deploy")
			k := model.TaskKey{Agent: "deployer", ID: id}
			eventually(t, "the deploy on bob's dashboard", func() bool { _, ok := bob.task(k); return ok })
			p := startOnTerminal(t, []string{"A2ATOP_HUB_TOKEN=" + tokenOf("alice")}, "--hub", hubURL)
			p.waitOutput(t, "operator alice", model.ShortID(id))
			p.typeKeys(t, "2", "/")
			p.typeKeys(t, strings.Split(model.ShortID(id), "")...)
			p.typeKeys(t, "\r", "a")
			eventually(t, "alice's claim seen by bob", func() bool { return bob.cl.ClaimWords(k.Agent, k.ID) != "" })
			start := time.Now()
			took := p.stop(t, sig)
			eventually(t, "alice's claim released", func() bool { return bob.cl.ClaimWords(k.Agent, k.ID) == "" })
			t.Logf("ended %s and the claim was released %s after %s", took.Round(time.Millisecond), time.Since(start).Round(time.Millisecond), signalName(sig))
		})
	}
}

// TestADecisionInFlightIsLeftUnknownOnEverySignal: the dashboard has sent
// an approval the agent took but has not answered; whatever ends the
// dashboard then, it ends at once, and its journal holds the decision
// and no outcome (unknown, for reconcile to settle), the agent one
// message: nothing half-sent, nothing sent twice.
func TestADecisionInFlightIsLeftUnknownOnEverySignal(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process per signal")
	}
	dir := isolate(t)
	ag := agenttest.StartAgent(t)
	for _, sig := range everySignal {
		t.Run(signalName(sig), func(t *testing.T) {
			ag.SetHold(false)
			id := ag.Start("deploy")
			p := startOnTerminal(t, nil, ag.URL)
			p.waitOutput(t, "interrupted 1", model.ShortID(id))
			p.typeKeys(t, "2", "/")
			p.typeKeys(t, strings.Split(model.ShortID(id), "")...)
			p.typeKeys(t, "\r", "a")
			p.waitOutput(t, "y: send")
			ag.SetHold(true)
			p.typeKeys(t, "y")
			eventually(t, "the agent takes the approval", func() bool { return ag.OnTask(id) == 1 })
			took := p.stop(t, sig)
			t.Logf("ended %s after %s with the approval in flight", took.Round(time.Millisecond), signalName(sig))
			b, err := os.ReadFile(filepath.Join(dir, "state", "a2atop", "journal.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			var decisions, outcomes int
			for _, l := range strings.Split(string(b), "\n") {
				if !strings.Contains(l, string(id)) {
					continue
				}
				if strings.Contains(l, `"type":"decision"`) {
					decisions++
				}
				if strings.Contains(l, `"type":"outcome"`) {
					outcomes++
				}
			}
			if decisions != 1 || outcomes != 0 {
				t.Errorf("the journal holds %d decisions and %d outcomes for the task, want 1 and none (unknown):\n%s", decisions, outcomes, b)
			}
			if n := ag.OnTask(id); n != 1 {
				t.Errorf("the agent received %d messages on the task, want 1", n)
			}
		})
	}
}

package sshd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/ssh"
	"github.com/charmbracelet/wish"
	"github.com/muesli/termenv"

	"a2atop/ui/termbg"
)

// Screens are the words a session may ask for after the host (`ssh -t
// hub inbox`): the screen the dashboard opens on.
var Screens = []string{"tasks", "inbox", "agents", "journal"}

// The size of a pty that says none (0x0) until the client's first window
// change.
const defaultWidth, defaultHeight = 80, 24

// Why a session ended, in its log record.
var (
	errIdle     = errors.New("idle timeout: no key for a while")
	errGone     = errors.New("the client stopped answering")
	errLeft     = errors.New("the client left")
	errShutdown = errors.New("the hub shut down")
)

// gated is a session the gate let in: the embedded ssh.Session and what
// the program and the end of the session need.
type gated struct {
	ssh.Session
	ctx         context.Context
	end         context.CancelCauseFunc
	in          *input
	operator    string
	fingerprint string
	screen      string
	done        func() // Dashboard's; nil until the program is built
}

// gate lets in a session of an operator's key with a pty asking for a
// screen, within the operator's sessions; it logs its start and end.
// Anything else gets one line and an exit status of 1.
func (s *Server) gate(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		s.running.Add(1)
		defer s.running.Done()
		op, fp := s.operatorOf(sess)
		if op == "" { // the handler runs only after a key of the keyring: no way here
			wish.Fatalln(sess, "a2atop: this key is not an operator's")
			return
		}
		started(sess.Context())
		remote := addr(sess.RemoteAddr())
		screen, err := screenOf(sess.Command(), sess.Subsystem())
		if err != nil {
			s.refuse(sess, op, fp, remote, err.Error())
			return
		}
		if _, _, ok := sess.Pty(); !ok {
			s.refuse(sess, op, fp, remote, "this hub serves its dashboard in a terminal: connect with ssh -t (ssh -t -p PORT HOST, and a screen after it if you like: "+strings.Join(Screens, ", ")+")")
			return
		}
		if n, ok := s.admit(op); !ok {
			s.refuse(sess, op, fp, remote, fmt.Sprintf("operator %s has %d SSH sessions open, the most this hub serves one operator (ssh_max_sessions); close one first", op, n))
			return
		}
		defer s.leave(op)
		ctx, end := context.WithCancelCause(context.Background())
		stop := context.AfterFunc(sess.Context(), func() {
			if s.closing.Load() {
				end(errShutdown)
			}
			end(errLeft)
		})
		defer stop()
		g := &gated{Session: sess, ctx: ctx, end: end, operator: op, fingerprint: fp, screen: screen}
		g.in = newInput(sess, s.o.InputRate, s.o.InputBurst, s.o.IdleTimeout, func() { end(errIdle) }, func() { end(errLeft) })
		defer g.in.stop()
		go keepalive(ctx, sess.Context(), s.o.Keepalive, func() { end(errGone) })
		at := time.Now()
		s.log.Info("ssh session started", "operator", op, "fingerprint", fp, "remote", remote, "screen", screenName(screen))
		next(g)
		end(errLeft)
		why := context.Cause(ctx)
		if errors.Is(why, errIdle) {
			wish.Println(sess, "\r\na2atop: closed after "+s.o.IdleTimeout.String()+" without a key (ssh_idle_timeout)\r")
		}
		s.log.Info("ssh session ended", "operator", op, "fingerprint", fp, "remote", remote,
			"started", at.UTC().Format(time.RFC3339), "took", time.Since(at).Round(time.Second).String(), "why", why.Error())
	}
}

// refuse says why in one line, exits 1 and logs it.
func (s *Server) refuse(sess ssh.Session, op, fp, remote, why string) {
	s.log.Warn("ssh session refused", "operator", op, "fingerprint", fp, "remote", remote, "why", why)
	wish.Fatalln(sess, "a2atop: "+why)
}

// screenOf is the screen a command names: none, or one of Screens.
// Any other command, and any subsystem (SFTP), is refused.
func screenOf(cmd []string, subsystem string) (string, error) {
	usage := "this hub serves its dashboard only: ssh -t HOST, or ssh -t HOST SCREEN with SCREEN one of " + strings.Join(Screens, ", ")
	switch {
	case subsystem != "":
		return "", errors.New("no subsystem here (" + subsystem + "); " + usage)
	case len(cmd) == 0:
		return "", nil
	case len(cmd) == 1 && slices.Contains(Screens, cmd[0]):
		return cmd[0], nil
	}
	return "", errors.New("no command here; " + usage)
}

func screenName(s string) string {
	if s == "" {
		return "tasks"
	}
	return s
}

// admit counts a session of op in, unless op has MaxSessions open; n is
// how many op has open.
func (s *Server) admit(op string) (n int, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n = s.sessions[op]; n >= s.o.MaxSessions {
		return n, false
	}
	s.sessions[op]++
	return n + 1, true
}

func (s *Server) leave(op string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sessions[op]--
}

// program is the bubbletea middleware's program handler: the operator's
// dashboard on the session, quit when the session ends. nil (after one
// line to the client) when Dashboard refuses.
func (s *Server) program(sess ssh.Session) *tea.Program {
	g := sess.(*gated)
	pty, _, _ := sess.Pty()
	w, h := pty.Window.Width, pty.Window.Height
	if w <= 0 || h <= 0 {
		w, h = defaultWidth, defaultHeight
	}
	// One writer for the renderer and the dashboard's own sequences (the
	// title, a notification, OSC 52), which a Cmd writes from a goroutine
	// of its own: the session's writer is not safe for concurrent writes
	// (the race detector saw the title and a notification race on it).
	out := &lockedWriter{w: sess}
	m, opts, done, err := s.o.Dashboard(Session{Context: g.ctx, Operator: g.operator, Screen: g.screen,
		Width: w, Height: h, Renderer: renderer(sess, pty.Term), Input: g.in, Output: out})
	if err != nil {
		s.refuse(sess, g.operator, g.fingerprint, addr(sess.RemoteAddr()), err.Error())
		return nil
	}
	g.done = done
	opts = append(opts, tea.WithInput(g.in), tea.WithOutput(out), tea.WithoutSignalHandler())
	p := s.o.NewProgram(fitted{m}, opts...)
	context.AfterFunc(g.ctx, func() {
		p.Quit()
		time.AfterFunc(2*time.Second, p.Kill) // a program stuck past a quit
	})
	return p
}

// ended runs after the program: Dashboard's done (claims released, the
// feed stopped).
func (s *Server) ended(ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		if g, ok := sess.(*gated); ok && g.done != nil {
			g.done()
		}
	}
}

// renderer draws in the client's colour profile, from its TERM (the pty
// request's) and COLORTERM and NO_COLOR (its environment, when sent),
// on its background (COLORFGBG, else dark). It asks the client's
// terminal nothing.
func renderer(sess ssh.Session, term string) *lipgloss.Renderer {
	env := sessionEnv(append(slices.Clone(sess.Environ()), "TERM="+term))
	r := lipgloss.NewRenderer(sess, termenv.WithEnvironment(env), termenv.WithUnsafe(), termenv.WithColorCache(true))
	if term == "" || term == "dumb" {
		r.SetColorProfile(termenv.Ascii)
	}
	r.SetHasDarkBackground(termbg.Guess(env.Getenv("COLORFGBG")))
	return r
}

// sessionEnv is a session's environment as termenv reads it.
type sessionEnv []string

func (e sessionEnv) Environ() []string { return e }

func (e sessionEnv) Getenv(k string) string {
	v := ""
	for _, kv := range e {
		if rest, ok := strings.CutPrefix(kv, k+"="); ok {
			v = rest // the last one sent
		}
	}
	return v
}

// fitted is the dashboard with a window of 0x0 (a client that never
// said its size) read as 80x24.
type fitted struct{ tea.Model }

func (f fitted) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if ws, ok := msg.(tea.WindowSizeMsg); ok && (ws.Width <= 0 || ws.Height <= 0) {
		msg = tea.WindowSizeMsg{Width: defaultWidth, Height: defaultHeight}
	}
	m, cmd := f.Model.Update(msg)
	return fitted{m}, cmd
}

// addr is a client's address for the log.
func addr(a net.Addr) string {
	if a == nil {
		return ""
	}
	return a.String()
}

// lockedWriter serializes the writes of several goroutines to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

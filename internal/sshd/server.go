package sshd

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/ssh"
	"github.com/charmbracelet/wish"
	wishtea "github.com/charmbracelet/wish/bubbletea"
	"github.com/muesli/termenv"
	gossh "golang.org/x/crypto/ssh"
)

// Operator is one person the server lets in: their name on the hub and
// the public keys they sign in with.
type Operator struct {
	Name string
	Keys []gossh.PublicKey
}

// Session is what Dashboard gets to build a session's program on.
type Session struct {
	// Context ends when the session does (the client left, the idle
	// timeout, the server's shutdown).
	Context context.Context
	// Operator is the operator the key is; Screen the screen asked for
	// ("tasks", "inbox", "agents", "journal"; "" for the first).
	Operator, Screen string
	// Width and Height are the pty's size (80x24 for a pty of none).
	Width, Height int
	// Renderer draws in the client's colour profile (from its TERM and
	// COLORTERM) on its background (COLORFGBG, else dark).
	Renderer *lipgloss.Renderer
	// Input and Output are the session's terminal: give them to the
	// program (tea.WithInput, tea.WithOutput).
	Input  io.Reader
	Output io.Writer
}

// Dashboard builds a session's program: the model, its options beyond
// the input and output, and what to do when it ends (done runs once the
// program has ended, before the session closes). An error is said to
// the client in one line and ends the session.
type Dashboard func(s Session) (m tea.Model, opts []tea.ProgramOption, done func(), err error)

// Options configure New. HostKey, Operators and Dashboard are required.
type Options struct {
	HostKey   gossh.Signer
	Operators []Operator
	Dashboard Dashboard
	// NewProgram builds the program; nil is tea.NewProgram.
	NewProgram func(tea.Model, ...tea.ProgramOption) *tea.Program
	// Logger records each session and each refusal; nil discards. Never
	// a private key.
	Logger *slog.Logger
	// IdleTimeout closes a session that sent nothing for this long.
	// 0 = 30m.
	IdleTimeout time.Duration
	// MaxSessions is how many sessions one operator may have open at
	// once. 0 = 4.
	MaxSessions int
	// InputRate is how many bytes a second a session's input is read at,
	// past a burst of InputBurst: a flood is read at that pace (the
	// client's own window fills), the other sessions are not slowed.
	// 0 = 8 KiB/s and 64 KiB.
	InputRate, InputBurst int
	// StartTimeout is how long a connection has from its first byte to
	// start a session (sign in, ask for a pty and the dashboard). 0 = 30s.
	StartTimeout time.Duration
	// Keepalive is how often the server asks a quiet client whether it
	// is still there; a client that does not answer within it is gone
	// and its session closed. 0 = 30s.
	Keepalive time.Duration
}

func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.NewProgram == nil {
		o.NewProgram = tea.NewProgram
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.IdleTimeout, 30*time.Minute)
	def(&o.StartTimeout, 30*time.Second)
	def(&o.Keepalive, 30*time.Second)
	if o.MaxSessions <= 0 {
		o.MaxSessions = 4
	}
	if o.InputRate <= 0 {
		o.InputRate = 8 << 10
	}
	if o.InputBurst <= 0 {
		o.InputBurst = 64 << 10
	}
	return o
}

// Server is the SSH server of the hub's dashboard. Build it with New,
// then Serve; Shutdown ends it. Safe for concurrent use.
type Server struct {
	o    Options
	log  *slog.Logger
	srv  *ssh.Server
	keys keyring

	mu       sync.Mutex
	sessions map[string]int // operator -> sessions open
	running  sync.WaitGroup // the sessions' handlers
	closing  atomic.Bool    // Shutdown or Close was called
}

// New checks the options and builds the server; it listens on nothing.
func New(o Options) (*Server, error) {
	o = o.withDefaults()
	switch {
	case o.HostKey == nil:
		return nil, errors.New("sshd: no host key")
	case o.Dashboard == nil:
		return nil, errors.New("sshd: no dashboard")
	}
	s := &Server{o: o, log: o.Logger, keys: newKeyring(o.Operators), sessions: map[string]int{}}
	srv, err := wish.NewServer(
		func(srv *ssh.Server) error { srv.AddHostKey(o.HostKey); return nil },
		wish.WithPublicKeyAuth(s.authenticate),
		wish.WithMiddleware(
			s.ended,
			wishtea.MiddlewareWithProgramHandler(s.program, termenv.Ascii),
			s.gate,
		),
		ssh.EmulatePty(),
		func(srv *ssh.Server) error {
			srv.Version = "a2atop"
			srv.ConnCallback = s.connected
			srv.ChannelHandlers = map[string]ssh.ChannelHandler{"session": s.sessionChannel}
			srv.RequestHandlers = map[string]ssh.RequestHandler{} // no tcpip-forward, no other global request
			srv.SubsystemHandlers = map[string]ssh.SubsystemHandler{}
			srv.LocalPortForwardingCallback = nil
			srv.ReversePortForwardingCallback = nil
			return nil
		},
	)
	if err != nil {
		return nil, err
	}
	s.srv = srv
	return s, nil
}

// Serve serves SSH on ln until Shutdown; it returns ssh.ErrServerClosed
// then.
func (s *Server) Serve(ln net.Listener) error { return s.srv.Serve(ln) }

// Shutdown stops listening, closes every connection and waits for the
// sessions' dashboards to end (their done run), until ctx does.
func (s *Server) Shutdown(ctx context.Context) error {
	s.closing.Store(true)
	err := s.srv.Close()
	ended := make(chan struct{})
	go func() { s.running.Wait(); close(ended) }()
	select {
	case <-ended:
	case <-ctx.Done():
		return ctx.Err()
	}
	return err
}

// Close closes the listeners and every connection at once.
func (s *Server) Close() error {
	s.closing.Store(true)
	return s.srv.Close()
}

// Sessions is how many sessions each operator has open.
func (s *Server) Sessions() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.sessions))
	for k, v := range s.sessions {
		if v > 0 {
			out[k] = v
		}
	}
	return out
}

// ErrServerClosed is what Serve returns after Shutdown or Close.
var ErrServerClosed = ssh.ErrServerClosed

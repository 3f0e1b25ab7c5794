package sshd

import (
	"context"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// freezer forwards TCP between a client and the server until frozen:
// then it moves no byte either way and closes nothing, as a network
// that went away.
type freezer struct {
	frozen chan struct{}
	once   sync.Once
}

func (f *freezer) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		select {
		case <-f.frozen:
			<-make(chan struct{}) // never again, until the test's end closes the conns
		default:
		}
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// TestKeepaliveClosesAVanishedClient: a client whose network vanishes
// without a FIN stops answering keepalives; its session is closed (its
// program's done runs: the claims released) and logged as such.
func TestKeepaliveClosesAVanishedClient(t *testing.T) {
	done := make(chan struct{})
	fx := serve(t, Options{Keepalive: 200 * time.Millisecond,
		Dashboard: func(Session) (tea.Model, []tea.ProgramOption, func(), error) {
			return shown{}, nil, func() { close(done) }, nil
		}})
	log := fx.log

	front, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer front.Close()
	f := &freezer{frozen: make(chan struct{})}
	var conns []net.Conn
	var mu sync.Mutex
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	go func() {
		c, err := front.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", fx.ln.Addr().String())
		if err != nil {
			return
		}
		mu.Lock()
		conns = append(conns, c, s)
		mu.Unlock()
		go f.pipe(s, c)
		go f.pipe(c, s)
	}()
	shell(t, fx.dial(t, front.Addr().String()))
	f.once.Do(func() { close(f.frozen) })
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("the session of a client that vanished was not closed; log:\n%s", log.String())
	}
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(log.String(), "the client stopped answering"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the end was not logged as a client that stopped answering:\n%s", log.String())
		}
	}
}

// TestShutdownEndsSessions: Shutdown closes every session, waits for
// their programs' done, and logs why they ended.
func TestShutdownEndsSessions(t *testing.T) {
	done := make(chan struct{})
	fx := serve(t, Options{
		Dashboard: func(Session) (tea.Model, []tea.ProgramOption, func(), error) {
			return shown{}, nil, func() { close(done) }, nil
		}})
	srv, log := fx.srv, fx.log
	shell(t, fx.dial(t, ""))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	select {
	case <-done:
	default:
		t.Fatal("Shutdown returned before the session's done ran")
	}
	if !strings.Contains(log.String(), `why="the hub shut down"`) {
		t.Fatalf("the end is not logged as the hub's shutdown:\n%s", log.String())
	}
}

// TestStartTimeout: a connection that sends nothing, and one that signs
// in but never starts a session, are closed after StartTimeout.
func TestStartTimeout(t *testing.T) {
	fx := serve(t, Options{StartTimeout: 300 * time.Millisecond,
		Dashboard: func(Session) (tea.Model, []tea.ProgramOption, func(), error) { return shown{}, nil, func() {}, nil }})
	log := fx.log

	silent, err := net.Dial("tcp", fx.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	_ = silent.SetReadDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.Copy(io.Discard, silent); err != nil { // the server's banner, then its close
		t.Fatalf("a silent connection was not closed: %v", err)
	}

	cl := fx.dial(t, "")
	ended := make(chan error, 1)
	go func() { ended <- cl.Wait() }()
	select {
	case <-ended:
	case <-time.After(30 * time.Second):
		t.Fatal("a signed-in connection without a session was not closed")
	}
	if !strings.Contains(log.String(), "no session started in time") {
		t.Fatalf("not logged:\n%s", log.String())
	}
}

package sshd

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/ssh"
	gossh "golang.org/x/crypto/ssh"
)

// maxEnv is how many environment variables a session may send; more
// are refused (each is kept).
const maxEnv = 64

// ctxStarted holds a connection's *atomic.Bool: a session started on it.
var ctxStarted = &ctxKey{"started"}

// ctxChannels holds a connection's *atomic.Int32: its session channels
// open.
var ctxChannels = &ctxKey{"channels"}

type ctxKey struct{ name string }

// connected is the ConnCallback: a connection that has not started a
// session StartTimeout after it came is closed (a client that never
// signs in, never asks for a pty or the dashboard).
func (s *Server) connected(ctx ssh.Context, conn net.Conn) net.Conn {
	var ok atomic.Bool
	ctx.SetValue(ctxStarted, &ok)
	ctx.SetValue(ctxChannels, new(atomic.Int32))
	t := time.AfterFunc(s.o.StartTimeout, func() {
		if !ok.Load() && ctx.Err() == nil {
			s.log.Info("ssh connection closed: no session started in time", "remote", addr(conn.RemoteAddr()), "after", s.o.StartTimeout.String())
			conn.Close()
		}
	})
	context.AfterFunc(ctx, func() { t.Stop() })
	return conn
}

// started marks the connection of ctx as having started a session.
func started(ctx ssh.Context) {
	if ok, _ := ctx.Value(ctxStarted).(*atomic.Bool); ok != nil {
		ok.Store(true)
	}
}

// sessionChannel is the "session" channel handler: charmbracelet/ssh's,
// at most MaxSessions channels a connection, with the session's requests
// filtered first: agent forwarding and X11 are refused (charmbracelet/ssh
// answers yes to agent forwarding and lets the handler decide), and at
// most maxEnv environment variables are taken.
func (s *Server) sessionChannel(srv *ssh.Server, conn *gossh.ServerConn, ch gossh.NewChannel, ctx ssh.Context) {
	open, _ := ctx.Value(ctxChannels).(*atomic.Int32)
	if open != nil && int(open.Add(1)) > s.o.MaxSessions {
		open.Add(-1)
		_ = ch.Reject(gossh.ResourceShortage, "too many sessions on one connection")
		return
	}
	if open != nil {
		defer open.Add(-1)
	}
	ssh.DefaultSessionHandler(srv, conn, filtered{NewChannel: ch}, ctx)
}

// filtered is a session channel whose requests pass through refuse.
type filtered struct{ gossh.NewChannel }

func (f filtered) Accept() (gossh.Channel, <-chan *gossh.Request, error) {
	ch, reqs, err := f.NewChannel.Accept()
	if err != nil {
		return ch, reqs, err
	}
	out := make(chan *gossh.Request)
	go func() {
		defer close(out)
		env := 0
		for r := range reqs {
			switch {
			case r.Type == "auth-agent-req@openssh.com", r.Type == "x11-req":
				_ = r.Reply(false, nil)
				continue
			case r.Type == "env":
				if env++; env > maxEnv {
					_ = r.Reply(false, nil)
					continue
				}
			}
			out <- r
		}
	}()
	return ch, out, nil
}

// keepalive asks the client every period whether it is there; gone is
// called when it does not answer within a period, or the connection
// failed. It ends with ctx.
func keepalive(ctx context.Context, conn ssh.Context, period time.Duration, gone func()) {
	sc, ok := conn.Value(ssh.ContextKeyConn).(gossh.Conn)
	if !ok {
		return
	}
	t := time.NewTicker(period)
	defer t.Stop()
	var once sync.Once
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		answered := make(chan error, 1)
		go func() {
			_, _, err := sc.SendRequest("keepalive@openssh.com", true, nil)
			answered <- err
		}()
		select {
		case <-ctx.Done():
			return
		case err := <-answered:
			if err == nil {
				continue
			}
		case <-time.After(period):
		}
		once.Do(func() { gone(); _ = sc.Close() })
		return
	}
}

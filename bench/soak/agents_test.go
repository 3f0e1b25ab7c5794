//go:build soak

package soak

import (
	"bytes"
	"context"
	"fmt"
	"iter"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// soakExec runs the soak's tasks. The first word of the message decides:
//
//	done    working, three artifact chunks, completed (about a second)
//	hold    working, a status a second for 5 to 15 s, completed
//	ask     input-required; the answer (any text) completes it
//	flood   3,000 working statuses as fast as the stream takes them, completed
type soakExec struct{ running atomic.Int64 }

func (e *soakExec) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		e.running.Add(1)
		defer e.running.Add(-1)
		status := func(st a2a.TaskState, text string) bool {
			return yield(a2a.NewStatusUpdateEvent(ec, st, a2a.NewMessageForTask(a2a.MessageRoleAgent, ec, a2a.NewTextPart(text))), nil)
		}
		pause := func(d time.Duration) bool {
			select {
			case <-time.After(d):
				return true
			case <-ctx.Done():
				return false
			}
		}
		if ec.StoredTask != nil { // the answer to a question
			if status(a2a.TaskStateWorking, "thanks") && pause(100*time.Millisecond) {
				status(a2a.TaskStateCompleted, "answered")
			}
			return
		}
		t := a2a.NewSubmittedTask(ec, ec.Message)
		now := time.Now()
		t.Status.Timestamp = &now
		if !yield(t, nil) {
			return
		}
		text := ""
		if ec.Message != nil && len(ec.Message.Parts) > 0 {
			text = ec.Message.Parts[0].Text()
		}
		switch strings.Fields(text + " _")[0] {
		case "ask":
			status(a2a.TaskStateInputRequired, "Which branch should I compare against?")
		case "hold":
			n := 5 + rand.N(10)
			for i := range n {
				if !status(a2a.TaskStateWorking, "step "+strconv.Itoa(i)) || !pause(time.Second) {
					return
				}
			}
			status(a2a.TaskStateCompleted, "held")
		case "flood":
			for range 3000 { // no message: the store's copy of the task stays small
				if !yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, nil), nil) {
					return
				}
			}
			status(a2a.TaskStateCompleted, "flooded")
		default:
			if !status(a2a.TaskStateWorking, "running") {
				return
			}
			art := a2a.NewArtifactID()
			for i := range 3 {
				if !pause(time.Duration(100+rand.N(200)) * time.Millisecond) {
					return
				}
				ev := a2a.NewArtifactUpdateEvent(ec, art, a2a.NewTextPart(fmt.Sprintf("line %d\n", i)))
				ev.Append, ev.LastChunk = i > 0, i == 2
				if !yield(ev, nil) {
					return
				}
			}
			status(a2a.TaskStateCompleted, "done")
		}
	}
}

func (e *soakExec) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

// authAll authenticates every caller as one user: the in-memory store
// refuses ListTasks to the anonymous user.
type authAll struct {
	a2asrv.PassthroughCallInterceptor
}

func (authAll) Before(ctx context.Context, cc *a2asrv.CallContext, _ *a2asrv.Request) (context.Context, any, error) {
	cc.User = a2asrv.NewAuthenticatedUser("soak", nil)
	return ctx, nil, nil
}

// soakAgent is one SDK server on a fixed loopback port that can be
// stopped and started again, on the same store or a new, empty one.
type soakAgent struct {
	name, kind string
	addr       string
	wrap       func(http.Handler) http.Handler

	mu    sync.Mutex
	store *prunedStore
	exec  *soakExec
	srv   *http.Server
	card  *a2a.AgentCard
}

func newSoakAgent(t *testing.T, name, kind string, wrap func(http.Handler) http.Handler) *soakAgent {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a := &soakAgent{name: name, kind: kind, addr: l.Addr().String(), wrap: wrap}
	l.Close()
	a.fresh()
	a.start(t)
	t.Cleanup(a.stop)
	return a
}

func (a *soakAgent) url() string { return "http://" + a.addr }

// fresh gives the agent a new, empty store (its tasks are gone).
func (a *soakAgent) fresh() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.store = newPrunedStore()
	a.exec = &soakExec{}
}

func (a *soakAgent) start(t *testing.T) {
	a.mu.Lock()
	defer a.mu.Unlock()
	h := a2asrv.NewHandler(a.exec, a2asrv.WithTaskStore(a.store), a2asrv.WithCallInterceptors(authAll{}),
		a2asrv.WithAgentInactivityTimeout(time.Minute))
	iface := a2a.NewAgentInterface(a.url()+"/invoke", a2a.TransportProtocolJSONRPC)
	if a.kind == "rest" {
		iface = a2a.NewAgentInterface(a.url()+"/rest", a2a.TransportProtocolHTTPJSON)
	}
	a.card = &a2a.AgentCard{Name: a.name, Description: "a soak agent", Version: "1",
		SupportedInterfaces: []*a2a.AgentInterface{iface}, Capabilities: a2a.AgentCapabilities{Streaming: true},
		DefaultInputModes: []string{"text"}, DefaultOutputModes: []string{"text"}}
	mux := http.NewServeMux()
	mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(a.card))
	mux.Handle("/invoke", a2asrv.NewJSONRPCHandler(h))
	mux.Handle("/rest/", http.StripPrefix("/rest", a2asrv.NewRESTHandler(h)))
	var hh http.Handler = mux
	if a.wrap != nil {
		hh = a.wrap(mux)
	}
	var l net.Listener
	var err error
	for range 100 { // the port may linger briefly after stop
		if l, err = net.Listen("tcp", a.addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Errorf("listen %s: %v", a.addr, err)
		return
	}
	a.srv = &http.Server{Handler: hh}
	go a.srv.Serve(l)
}

func (a *soakAgent) stop() {
	a.mu.Lock()
	srv := a.srv
	a.srv = nil
	a.mu.Unlock()
	if srv != nil {
		srv.Close()
	}
}

// holds returns every task the agent holds now, by id.
func (a *soakAgent) holds(t *testing.T) map[a2a.TaskID]*a2a.Task {
	a.mu.Lock()
	store := a.store
	a.mu.Unlock()
	ctx, cc := a2asrv.NewCallContext(context.Background(), nil)
	cc.User = a2asrv.NewAuthenticatedUser("soak", nil)
	out := map[a2a.TaskID]*a2a.Task{}
	req := &a2a.ListTasksRequest{PageSize: 100}
	for {
		resp, err := store.List(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		for _, tk := range resp.Tasks {
			out[tk.ID] = tk
		}
		if resp.NextPageToken == "" {
			return out
		}
		req.PageToken = resp.NextPageToken
	}
}

// keepAlives turns the agent's HTTP keep-alives on or off; off closes the
// idle connections, and each other one once it has answered.
func (a *soakAgent) keepAlives(on bool) {
	a.mu.Lock()
	srv := a.srv
	a.mu.Unlock()
	if srv != nil {
		srv.SetKeepAlivesEnabled(on)
	}
}

func (a *soakAgent) running() int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.exec.running.Load()
}

// dropStreams cuts SSE responses after one to three events, at random, as
// a flaky proxy would.
func dropStreams(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(&cutter{ResponseWriter: w, left: 1 + rand.N(3)}, r)
	})
}

type cutter struct {
	http.ResponseWriter
	left int
	cut  bool
}

func (c *cutter) Write(p []byte) (int, error) {
	if c.cut {
		return 0, net.ErrClosed
	}
	if strings.HasPrefix(c.Header().Get("Content-Type"), "text/event-stream") {
		if c.left -= bytes.Count(p, []byte("\n\n")); c.left < 0 {
			c.cut = true
			if conn, _, err := http.NewResponseController(c.ResponseWriter).Hijack(); err == nil {
				conn.Close()
			}
			return 0, net.ErrClosed
		}
	}
	return c.ResponseWriter.Write(p)
}

func (c *cutter) Flush() {
	if !c.cut {
		http.NewResponseController(c.ResponseWriter).Flush()
	}
}

// trickle writes SSE responses 16 bytes at a time, 5 ms apart.
func trickle(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(&slow{ResponseWriter: w}, r)
	})
}

type slow struct{ http.ResponseWriter }

func (s *slow) Write(p []byte) (int, error) {
	if !strings.HasPrefix(s.Header().Get("Content-Type"), "text/event-stream") {
		return s.ResponseWriter.Write(p)
	}
	n := 0
	for len(p) > 0 {
		k := min(16, len(p))
		m, err := s.ResponseWriter.Write(p[:k])
		n += m
		if err != nil {
			return n, err
		}
		http.NewResponseController(s.ResponseWriter).Flush()
		p = p[k:]
		time.Sleep(5 * time.Millisecond)
	}
	return n, nil
}

func (s *slow) Flush() { http.NewResponseController(s.ResponseWriter).Flush() }

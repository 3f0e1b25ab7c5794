package push

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
)

// sink records what the receiver hands on. It stands in for
// a2aclient.Manager, whose side the interop tests drive against real
// agents.
type sink struct {
	mu     sync.Mutex
	got    []a2a.Event
	health map[string]model.PushHealth
}

func (s *sink) Deliver(_ string, ev a2a.Event) {
	s.mu.Lock()
	s.got = append(s.got, ev)
	s.mu.Unlock()
}

func (s *sink) SetPushHealth(agent string, h model.PushHealth) {
	s.mu.Lock()
	s.health[agent] = h
	s.mu.Unlock()
}

func (s *sink) delivered() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.got)
}

type rig struct {
	r   *Receiver
	s   *sink
	srv *httptest.Server
	now time.Time
	mu  sync.Mutex
}

func newRig(t *testing.T, o Options) *rig {
	g := &rig{s: &sink{health: map[string]model.PushHealth{}}, now: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	g.srv = httptest.NewUnstartedServer(nil)
	o.PublicURL, o.Sink = "http://"+g.srv.Listener.Addr().String(), g.s
	if o.Agents == nil {
		o.Agents = []string{"deployer", "planner", "code reviewer"}
	}
	o.Now = g.clock
	g.r = New(o)
	g.srv.Config.Handler = g.r
	g.srv.Start()
	t.Cleanup(g.srv.Close)
	return g
}

func (g *rig) clock() time.Time {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.now
}

func (g *rig) advance(d time.Duration) {
	g.mu.Lock()
	g.now = g.now.Add(d)
	g.mu.Unlock()
}

func (g *rig) issue(t *testing.T, agent string, task a2a.TaskID) (string, string) {
	t.Helper()
	hook, tok, err := g.r.Issue(agent, task)
	if err != nil {
		t.Fatal(err)
	}
	g.r.Registered(agent, tok)
	return hook, tok
}

func post(t *testing.T, url string, h http.Header, body io.Reader) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, body)
	for k, v := range h {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

func status(id a2a.TaskID, st a2a.TaskState) []byte {
	b, _ := json.Marshal(a2a.StreamResponse{Event: &a2a.TaskStatusUpdateEvent{TaskID: id, ContextID: "c", Status: a2a.TaskStatus{State: st}}})
	return b
}

func bearer(tok string) http.Header { return http.Header{"Authorization": {"Bearer " + tok}} }

// forge is a token of tok's length and alphabet that is not tok.
func forge(tok string) string {
	if tok[0] == 'x' {
		return "y" + tok[1:]
	}
	return "x" + tok[1:]
}

// TestForgeIsNeverTheToken: whatever character a token starts with (Issue
// draws it at random from base64url's 64), its forgery differs from it. A
// forgery that set the first character to a fixed one was the token itself
// one time in 64, and TestHostilePOSTs then counted the real token's
// deliveries as forged ones.
func TestForgeIsNeverTheToken(t *testing.T) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	g := newRig(t, Options{})
	_, tok := g.issue(t, "deployer", "t1")
	for _, c := range alphabet {
		tk := string(c) + tok[1:]
		if f := forge(tk); f == tk || len(f) != len(tk) {
			t.Errorf("the forgery of a token starting with %q is %q: want another token of its length", c, f[:1]+"...")
		}
	}
}

// TestTokenHeaders: the token is taken from each header the SDKs use
// (Bearer in any case, A2A-Notification-Token, X-A2A-Notification-Token);
// the webhook of an agent whose name needs escaping works.
func TestTokenHeaders(t *testing.T) {
	g := newRig(t, Options{})
	hook, tok := g.issue(t, "code reviewer", "t1")
	if !strings.HasSuffix(hook, Path+"code%20reviewer") {
		t.Fatalf("webhook %s", hook)
	}
	for _, h := range []http.Header{
		bearer(tok), {"Authorization": {"bearer " + tok}},
		{"A2a-Notification-Token": {tok}}, {"X-A2a-Notification-Token": {tok}},
	} {
		if got := post(t, hook, h, bytes.NewReader(status("t1", a2a.TaskStateWorking))); got != http.StatusOK {
			t.Errorf("headers %v: %d, want 200", h, got)
		}
	}
	if g.s.delivered() != 4 {
		t.Errorf("delivered %d, want 4", g.s.delivered())
	}
}

// TestRetiredTokens: a retired token is taken for Grace (a delivery sent
// just before the config was deleted), then refused; a failed
// registration's token at once.
func TestRetiredTokens(t *testing.T) {
	g := newRig(t, Options{Grace: time.Minute})
	hook, tok := g.issue(t, "deployer", "t1")
	g.r.Retire("deployer", tok)
	if h := g.r.Health("deployer"); h.Configs != 0 {
		t.Errorf("configs after retire: %d", h.Configs)
	}
	if got := post(t, hook, bearer(tok), bytes.NewReader(status("t1", a2a.TaskStateCompleted))); got != http.StatusOK {
		t.Errorf("within grace: %d, want 200", got)
	}
	g.advance(2 * time.Minute)
	if got := post(t, hook, bearer(tok), bytes.NewReader(status("t1", a2a.TaskStateCompleted))); got != http.StatusUnauthorized {
		t.Errorf("after grace: %d, want 401", got)
	}
	_, tok2, _ := g.r.Issue("deployer", "t2")
	g.r.Failed("deployer", tok2, "registration refused: no")
	if got := post(t, hook, bearer(tok2), bytes.NewReader(status("t2", a2a.TaskStateCompleted))); got != http.StatusUnauthorized {
		t.Errorf("a failed registration's token: %d, want 401", got)
	}
	if h := g.r.Health("deployer"); h.Note != "registration refused: no" || h.Rejected != 2 {
		t.Errorf("health %+v", h)
	}
	g.r.mu.Lock()
	n := len(g.r.tickets)
	g.r.mu.Unlock()
	if n != 0 {
		t.Errorf("%d tickets kept after their end", n)
	}
}

// TestBounds: an agent holds at most MaxConfigs live configs; bodies are
// read MaxInFlight at a time, the rest refused 503 at once.
func TestBounds(t *testing.T) {
	g := newRig(t, Options{MaxConfigs: 2, MaxInFlight: 1, MaxBody: 200})
	g.issue(t, "deployer", "a")
	hook, tok := g.issue(t, "deployer", "b")
	if _, _, err := g.r.Issue("deployer", "c"); err != ErrFull {
		t.Errorf("a third config: %v, want ErrFull", err)
	}
	if _, _, err := g.r.Issue("nobody", "c"); err != ErrUnknownAgent {
		t.Errorf("an unknown agent: %v", err)
	}
	// A slow sender: headers and a first byte, the rest later.
	conn, err := net.Dial("tcp", strings.TrimPrefix(g.r.o.PublicURL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	path := strings.TrimPrefix(hook, g.r.o.PublicURL)
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Length: 300\r\n\r\n{", path, tok)
	deadline := time.Now().Add(10 * time.Second)
	for len(g.r.busy) == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if got := post(t, hook, bearer(tok), bytes.NewReader(status("b", a2a.TaskStateWorking))); got != http.StatusServiceUnavailable {
		t.Errorf("while another body is read: %d, want 503", got)
	}
	_, _ = conn.Write(bytes.Repeat([]byte("x"), 299))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil || resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("a body over MaxBody: %v %v, want 413", resp, err)
	}
	if h := g.r.Health("deployer"); h.Rejected != 2 || !strings.Contains(h.LastRejected, "413") {
		t.Errorf("health %+v", h)
	}
}

// TestHostilePOSTs: many concurrent forged POSTs, on every agent and on
// names that are none, never crash the receiver, never deliver, and
// count on the agent their path names (or on no row).
func TestHostilePOSTs(t *testing.T) {
	g := newRig(t, Options{})
	hook, tok := g.issue(t, "deployer", "t1")
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			switch i % 5 {
			case 0:
				post(t, hook, bearer(forge(tok)), bytes.NewReader(status("t1", a2a.TaskStateCompleted)))
			case 1:
				post(t, hook, bearer(tok), strings.NewReader(`{"task":`))
			case 2:
				post(t, g.r.o.PublicURL+Path+"deployer/../planner", bearer(tok), nil)
			case 3:
				post(t, g.r.o.PublicURL+Path+strings.Repeat("a", 3000), nil, nil)
			case 4:
				post(t, hook, bearer(tok), bytes.NewReader(status("t2", a2a.TaskStateCompleted)))
			}
		}()
	}
	wg.Wait()
	if g.s.delivered() != 0 {
		t.Errorf("%d forged deliveries reached the sink", g.s.delivered())
	}
	if h := g.r.Health("deployer"); h.Rejected != 120 {
		t.Errorf("deployer rejected %d, want 120", h.Rejected)
	}
	if h := g.r.Health("planner"); h.Rejected != 0 {
		t.Errorf("planner counted %d refusals of POSTs to another webhook", h.Rejected)
	}
	if g.r.Unknown() != 80 {
		t.Errorf("unknown %d, want 80", g.r.Unknown())
	}
}

// TestPublishes: the status reaches the sink, gathered.
func TestPublishes(t *testing.T) {
	g := newRig(t, Options{Publish: time.Millisecond})
	hook, tok := g.issue(t, "deployer", "t1")
	post(t, hook, bearer(tok), bytes.NewReader(status("t1", a2a.TaskStateWorking)))
	g.r.SetOffered("planner", false, "the agent's card does not offer push notifications")
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		g.s.mu.Lock()
		d, p := g.s.health["deployer"], g.s.health["planner"]
		g.s.mu.Unlock()
		if d.Delivered == 1 && d.Configs == 1 && !d.LastDelivery.IsZero() && p.Note != "" && !p.On {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Errorf("published %+v", g.s.health)
}

// FuzzBody: any body with a valid token is refused or delivered for the
// token's task alone; never a panic.
func FuzzBody(f *testing.F) {
	f.Add([]byte(`{"statusUpdate":{"taskId":"t1","contextId":"c","status":{"state":"TASK_STATE_WORKING"}}}`))
	f.Add([]byte(`{"task":{"id":"t1","status":{"state":"TASK_STATE_COMPLETED"}}}`))
	f.Add([]byte(`{"artifactUpdate":{"taskId":"t1","artifact":{"artifactId":"a","parts":[{"text":"x"}]}}}`))
	f.Add([]byte(`{"message":{"taskId":"t1","messageId":"m","role":"ROLE_AGENT","parts":[]}}`))
	f.Add([]byte(`{"task":null,"statusUpdate":{"taskId":"t2"}}`))
	r := New(Options{PublicURL: "http://x", Agents: []string{"a"}, Sink: &sink{health: map[string]model.PushHealth{}}, MaxBody: 4096})
	_, tok, _ := r.Issue("a", "t1")
	f.Fuzz(func(t *testing.T, body []byte) {
		req := httptest.NewRequest(http.MethodPost, "http://x"+Path+"a", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tok)
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		if w.Code == http.StatusOK {
			var sr a2a.StreamResponse
			if err := json.Unmarshal(body, &sr); err != nil || taskOf(sr.Event) != "t1" {
				t.Fatalf("accepted a body for another task: %q", body)
			}
		}
	})
}

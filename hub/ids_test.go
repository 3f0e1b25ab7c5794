package hub_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/a2aclient"
	"a2atop/approvals"
	"a2atop/hub"
	"a2atop/internal/agenttest"
	"a2atop/model"
)

// spy is the fixture's watchers and sender, keeping every call that
// names an agent.
type spy struct {
	hub.Watchers
	sender approvals.Sender
	mu     sync.Mutex
	calls  []string // "Get agent id", "Reply agent id", ...
}

func (s *spy) note(op, agent string, id a2a.TaskID) {
	s.mu.Lock()
	s.calls = append(s.calls, op+" "+agent+" "+string(id))
	s.mu.Unlock()
}

func (s *spy) seen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls)
}

func (s *spy) Get(ctx context.Context, agent string, id a2a.TaskID, h int, arts bool) (*a2a.Task, error) {
	s.note("Get", agent, id)
	return s.Watchers.Get(ctx, agent, id, h, arts)
}

func (s *spy) Cancel(ctx context.Context, agent string, id a2a.TaskID) (*a2a.Task, error) {
	s.note("Cancel", agent, id)
	return s.Watchers.Cancel(ctx, agent, id)
}

func (s *spy) Capture(agent string) []model.Exchange {
	s.note("Capture", agent, "")
	return s.Watchers.Capture(agent)
}

func (s *spy) Reply(ctx context.Context, agent string, msg *a2a.Message) (*a2a.Task, error) {
	s.note("Reply", agent, msg.TaskID)
	return s.sender.Reply(ctx, agent, msg)
}

// withSpy puts a spy between the hub and its watchers and sender.
func withSpy(s *spy) func(*hub.Options) {
	return func(o *hub.Options) {
		s.Watchers, s.sender = o.Watchers, o.Journal.Sender
		o.Watchers, o.Journal.Sender = s, s
	}
}

// callJSON sends one request to the fixture's hub as operator and returns
// the status and the body.
func (fx *fixture) callJSON(operator, method, path string, body any) (int, string) {
	fx.t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			fx.t.Fatal(err)
		}
		r = strings.NewReader(string(b))
	}
	req, _ := http.NewRequest(method, fx.srv.URL+path, r)
	req.Header.Set("Authorization", "Bearer "+tokens[operator])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fx.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestHubRefusesIDsItCannotSend: every route that names an agent or a
// task refuses, in words and with 400, a name or an id a2atop cannot
// send (control characters, too long, a dot segment, not UTF-8, empty)
// before any watcher, the journal's sender or the feed sees it; an id
// that only looks like a path reaches the watchers as it is.
func TestHubRefusesIDsItCannotSend(t *testing.T) {
	s := &spy{}
	fx := newFixture(t, withSpy(s))
	badIDs := map[string]string{
		"a\x1b]0;owned\x07":                     "holds a control character (U+001B)",
		strings.Repeat("x", model.MaxIDBytes+1): "is longer than 256 bytes",
		"..":                                    "is a dot segment",
		"":                                      "is empty",
	}
	badAgents := map[string]string{"agent\x00": "holds a control character (U+0000)", strings.Repeat("a", 300): "is longer than", "": "is empty"}
	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("main"))
	type req struct {
		operator, method, path string
		body                   any
	}
	var reqs []req
	var whys []string
	for id, why := range badIDs {
		q := url.Values{"agent": {"agent"}, "id": {id}}.Encode()
		reqs = append(reqs,
			req{"carol", "GET", "/v1/task?" + q, nil},
			req{"alice", "POST", "/v1/cancel", hub.CancelRequest{Agent: "agent", Task: a2a.TaskID(id)}},
			req{"alice", "POST", "/v1/claims", hub.ClaimRequest{Agent: "agent", Task: a2a.TaskID(id)}},
			req{"alice", "DELETE", "/v1/claims", hub.ClaimRequest{Agent: "agent", Task: a2a.TaskID(id)}},
			req{"alice", "POST", "/v1/notes", hub.NoteRequest{Agent: "agent", Task: a2a.TaskID(id), Text: "left"}})
		whys = append(whys, "task id:"+why, "task id:"+why, "task id:"+why, "task id:"+why, "task id:"+why)
		if id != "" { // a decision that names no task starts one
			reqs = append(reqs, req{"alice", "POST", "/v1/decisions", hub.DecisionRequest{MessageID: "m-" + id[:1], Agent: "agent",
				TaskID: a2a.TaskID(id), Kind: approvals.KindReply, Prompt: "p", At: time.Now(), Message: msg, Attempt: 1}})
			whys = append(whys, "task id:"+why)
		}
	}
	reqs = append(reqs, req{"carol", "GET", "/v1/task?agent=agent&id=%FF%FE", nil})
	whys = append(whys, "task id:is not valid UTF-8")
	for name, why := range badAgents {
		q := url.Values{"agent": {name}, "id": {"t-1"}}.Encode()
		reqs = append(reqs,
			req{"carol", "GET", "/v1/task?" + q, nil},
			req{"carol", "GET", "/v1/capture?" + url.Values{"agent": {name}}.Encode(), nil},
			req{"alice", "POST", "/v1/cancel", hub.CancelRequest{Agent: name, Task: "t-1"}},
			req{"alice", "POST", "/v1/claims", hub.ClaimRequest{Agent: name, Task: "t-1"}},
			req{"alice", "POST", "/v1/decisions", hub.DecisionRequest{MessageID: "m-agent", Agent: name,
				TaskID: "t-1", Kind: approvals.KindReply, Prompt: "p", At: time.Now(), Message: msg, Attempt: 1}})
		for range 5 {
			whys = append(whys, "agent name:"+why)
		}
	}
	for i, r := range reqs {
		status, body := fx.callJSON(r.operator, r.method, r.path, r.body)
		what, why, _ := strings.Cut(whys[i], ":")
		if status != http.StatusBadRequest || !strings.Contains(body, what) || !strings.Contains(body, why) {
			t.Errorf("%s %s: %d %s; want 400 saying the %s %s", r.method, cut(r.path), status, cut(body), what, why)
		}
	}
	if c := s.seen(); len(c) > 0 {
		t.Errorf("the watchers or the sender were called: %q", c)
	}

	// An id that only looks like a path is the watchers' to send.
	const hostile = "../../secret-admin?delete=all"
	status, body := fx.callJSON("carol", "GET", "/v1/task?agent=agent&id=..%2F..%2Fsecret-admin%3Fdelete%3Dall", nil)
	var ans hub.TaskAnswer
	_ = json.Unmarshal([]byte(body), &ans)
	if status != http.StatusBadGateway || !ans.NotFound || !slices.Contains(s.seen(), "Get agent "+hostile) {
		t.Errorf("GET /v1/task of %q: %d %s, watchers saw %q; want the agent's task not found", hostile, status, body, s.seen())
	}
	t.Logf("refused, e.g.: %s", func() string {
		_, b := fx.callJSON("carol", "GET", "/v1/task?agent=agent&id=a%1B%5D0%3Bowned%07", nil)
		return b
	}())
}

// cut shortens s for a message.
func cut(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}

// TestHubTaskIDOnePathSegmentOnREST is issue 21's case end to end: an
// operator who may only watch asks the hub, over HTTP, for a task whose
// id looks like a path on an HTTP+JSON agent, and reads the hub's raw
// capture; one with the cancel role cancels it. The agent's origin sees
// only its A2A routes, the id one segment of them (a catch-all on the
// same server records anything else: nothing), and the capture shows
// the request as it went.
func TestHubTaskIDOnePathSegmentOnREST(t *testing.T) {
	ra := agenttest.StartRESTAgent(t)
	const hostile = a2a.TaskID("../../secret-admin?delete=all")
	ra.Waiting(t, hostile)
	mgr := a2aclient.New([]a2aclient.AgentOptions{{Name: "rest", URL: ra.URL, SweepInterval: 100 * time.Millisecond,
		Headers: []a2aclient.Header{{Name: "Authorization", Value: "Bearer agent-secret-4b9f"}}}}, a2aclient.Options{})
	var ops []hub.Operator
	for name, tok := range tokens {
		ops = append(ops, hub.Operator{Name: name, TokenHash: hub.HashToken(tok), Roles: roles[name]})
	}
	h, err := hub.Open(hub.Options{Watchers: mgr, Agents: []hub.Agent{{Name: "rest", URL: ra.URL}}, Operators: ops,
		Journal: approvals.Options{JournalPath: filepath.Join(t.TempDir(), "journal.jsonl"), Sender: mgr, SendTimeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h.Handler())
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { _ = h.Run(ctx); close(ran) }()
	t.Cleanup(func() { cancel(); <-ran; srv.CloseClientConnections(); srv.Close(); _ = h.Close() })
	fx := &fixture{t: t, srv: srv}

	status, body := fx.callJSON("carol", "GET", "/v1/task?"+url.Values{"agent": {"rest"}, "id": {string(hostile)}}.Encode(), nil)
	var ans hub.TaskAnswer
	if err := json.Unmarshal([]byte(body), &ans); status != http.StatusOK || err != nil || ans.Task == nil || ans.Task.ID != hostile {
		t.Fatalf("GET /v1/task of %q: %d %s", hostile, status, cut(body))
	}
	status, body = fx.callJSON("alice", "POST", "/v1/cancel", hub.CancelRequest{Agent: "rest", Task: hostile})
	if err := json.Unmarshal([]byte(body), &ans); status != http.StatusOK || err != nil || ans.Task == nil || ans.Task.Status.State != a2a.TaskStateCanceled {
		t.Errorf("POST /v1/cancel of %q: %d %s", hostile, status, cut(body))
	}
	_, body = fx.callJSON("carol", "GET", "/v1/capture?agent=rest", nil)
	var c hub.Capture
	if err := json.Unmarshal([]byte(body), &c); err != nil {
		t.Fatal(err)
	}
	const seg = "/rest/tasks/..%2F..%2Fsecret-admin%3Fdelete%3Dall"
	var urls []string
	for _, ex := range c.Exchanges {
		urls = append(urls, ex.Method+" "+ex.URL)
	}
	hits, strays := ra.Seen()
	t.Logf("on the wire: %q\nin the capture: %q", hits, urls)
	for _, want := range []string{"GET " + seg, "POST " + seg + ":cancel"} {
		if !slices.ContainsFunc(hits, func(h string) bool { return strings.HasPrefix(h, want) }) {
			t.Errorf("the agent saw no %s: %q", want, hits)
		}
		if !slices.ContainsFunc(urls, func(u string) bool { return strings.Contains(u, want[strings.Index(want, " ")+1:]) }) {
			t.Errorf("the capture shows no %s: %q", want, urls)
		}
	}
	if len(strays) > 0 {
		t.Errorf("requests outside the A2A routes on the agent's origin: %q", strays)
	}
}

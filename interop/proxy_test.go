package interop

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// proxy is a recording reverse proxy in front of an HTTP agent. It rewrites
// the agent card so every HTTP interface points at the proxy, records each
// request's A2A-Version, and can hold SubscribeToTask calls, and
// SendMessage calls on a task, until released.
type proxy struct {
	URL      string
	upstream string

	mu    sync.Mutex
	seen  []peerRequest
	subs  map[string]int  // task id -> SubscribeToTask calls seen
	hold  map[string]bool // task ids whose subscribes wait
	held  map[string]chan struct{}
	calls map[string]int // "ListTasks", "GetTask", ... -> count
	// arrived counts the calls that reached a hold, by hold key.
	arrived map[string]int
	// rewrites are extra replacements in the card (frontGRPC).
	rewrites [][2][]byte
}

func startProxy(t *testing.T, upstream string) *proxy {
	t.Helper()
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{upstream: upstream, subs: map[string]int{}, hold: map[string]bool{}, held: map[string]chan struct{}{}, calls: map[string]int{}, arrived: map[string]int{}}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.FlushInterval = -1 // pass SSE through as it comes
	rp.ModifyResponse = func(resp *http.Response) error {
		if !strings.HasSuffix(resp.Request.URL.Path, "/agent-card.json") {
			return nil
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		b = bytes.ReplaceAll(b, []byte(p.upstream), []byte(p.URL))
		p.mu.Lock()
		for _, rw := range p.rewrites {
			b = bytes.ReplaceAll(b, rw[0], rw[1])
		}
		p.mu.Unlock()
		resp.Body = io.NopCloser(bytes.NewReader(b))
		resp.ContentLength = int64(len(b))
		resp.Header.Set("Content-Length", strconv.Itoa(len(b)))
		resp.Header.Del("ETag")
		return nil
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		method, id := p.inspect(r)
		switch method {
		case "SubscribeToTask":
			p.wait(id)
		case "SendMessage":
			if id != "" {
				p.wait(sendKey + id)
			}
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { p.releaseAll(); srv.Close() })
	p.URL = srv.URL
	return p
}

// sentTaskID is the taskId of a message, as both versions spell it.
type sentTaskID struct {
	TaskID string `json:"taskId"`
}

// sendKey prefixes the hold keys of SendMessage calls on a task.
const sendKey = "send:"

var restTaskPath = regexp.MustCompile(`/tasks/([^/:]+)(:[a-z]+)?$`)

// inspect records the request (counted under its method name) and returns
// the operation the proxy may hold ("SubscribeToTask", "SendMessage" or
// "") and its task id.
func (p *proxy) inspect(r *http.Request) (op, id string) {
	var method string
	var body []byte
	if r.Body != nil {
		body, _ = io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	var rpc struct {
		Method string `json:"method"`
		Params struct {
			ID      string     `json:"id"`
			Message sentTaskID `json:"message"`
		} `json:"params"`
	}
	switch {
	case json.Unmarshal(body, &rpc) == nil && rpc.Method != "":
		method, id = rpc.Method, rpc.Params.ID
		switch method {
		case "tasks/resubscribe":
			method = "SubscribeToTask"
		case "SendMessage", "message/send": // counted under its own name
			op, id = "SendMessage", rpc.Params.Message.TaskID
		}
	case strings.HasSuffix(r.URL.Path, "message:send"):
		var rest struct {
			Message sentTaskID `json:"message"`
		}
		_ = json.Unmarshal(body, &rest)
		method, op, id = r.Method+" "+r.URL.Path, "SendMessage", rest.Message.TaskID
	case strings.HasSuffix(r.URL.Path, ":subscribe"):
		method, id = "SubscribeToTask", restTaskPath.FindStringSubmatch(r.URL.Path)[1]
	case strings.HasSuffix(r.URL.Path, "/tasks") && r.Method == http.MethodGet:
		method = "ListTasks"
	default:
		method = r.Method + " " + r.URL.Path
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seen = append(p.seen, peerRequest{Kind: "http", What: r.Method + " " + r.URL.Path, Version: r.Header.Get("A2A-Version")})
	p.calls[method]++
	if method == "SubscribeToTask" {
		p.subs[id]++
		op = method
	}
	return op, id
}

// holdSubscribes makes later SubscribeToTask calls on task id wait for
// release(id).
func (p *proxy) holdSubscribes(id string) {
	p.mu.Lock()
	p.hold[id] = true
	p.mu.Unlock()
}

// holdSends makes later SendMessage calls on task id wait for
// releaseSends(id); heldSends reports how many are waiting or went through.
func (p *proxy) holdSends(id string) { p.holdSubscribes(sendKey + id) }

func (p *proxy) releaseSends(id string) { p.release(sendKey + id) }

func (p *proxy) heldSends(id string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.arrived[sendKey+id]
}

func (p *proxy) wait(id string) {
	p.mu.Lock()
	if !p.hold[id] {
		p.mu.Unlock()
		return
	}
	p.arrived[id]++
	ch := p.held[id]
	if ch == nil {
		ch = make(chan struct{})
		p.held[id] = ch
	}
	p.mu.Unlock()
	<-ch
}

// release lets the held subscribes of task id through, and later ones too.
func (p *proxy) release(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	ch := p.held[id]
	if ch == nil {
		ch = make(chan struct{})
		p.held[id] = ch
	}
	select {
	case <-ch:
	default:
		close(ch)
	}
}

func (p *proxy) releaseAll() {
	p.mu.Lock()
	ids := make([]string, 0, len(p.held))
	for id := range p.held {
		ids = append(ids, id)
	}
	clear(p.hold)
	p.mu.Unlock()
	for _, id := range ids {
		p.release(id)
	}
}

func (p *proxy) subscribes(id string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.subs[id]
}

func (p *proxy) count(method string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls[method]
}

func (p *proxy) requests() []peerRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]peerRequest(nil), p.seen...)
}

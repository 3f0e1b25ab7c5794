package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdk "github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	a2agrpc "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// exchange is one HTTP call seen by the recorder.
type exchange struct {
	Method, Path, Query, Version, Auth string
	Status                             int
	Body                               []byte // response body (plain: up to 1 MiB; SSE: first 256 KiB as read)
}

// recorder is an http.RoundTripper that keeps every request's A2A-Version
// and the response bytes, so tests can read real JSON-RPC codes.
type recorder struct {
	mu   sync.Mutex
	next http.RoundTripper
	seen []*exchange
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	ex := &exchange{Method: req.Method, Path: req.URL.Path, Query: req.URL.RawQuery, Version: req.Header.Get("A2A-Version"), Auth: req.Header.Get("Authorization")}
	if v := req.URL.Query().Get("A2A-Version"); v != "" && ex.Version == "" {
		ex.Version = "query:" + v
	}
	resp, err := r.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	ex.Status = resp.StatusCode
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		resp.Body = &teeBody{rc: resp.Body, ex: ex, mu: &r.mu}
	} else {
		// Read plain bodies now: the SDK may close them unread.
		b, rerr := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		if rerr != nil {
			return nil, rerr
		}
		ex.Body = b
		resp.Body = io.NopCloser(bytes.NewReader(b))
	}
	r.mu.Lock()
	r.seen = append(r.seen, ex)
	r.mu.Unlock()
	return resp, nil
}

func (r *recorder) exchanges() []exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]exchange, len(r.seen))
	for i, e := range r.seen {
		out[i] = *e
		out[i].Body = bytes.Clone(e.Body)
	}
	return out
}

type teeBody struct {
	rc io.ReadCloser
	ex *exchange
	mu *sync.Mutex
}

func (t *teeBody) Read(p []byte) (int, error) {
	n, err := t.rc.Read(p)
	if n > 0 {
		t.mu.Lock()
		if len(t.ex.Body) < 256<<10 {
			t.ex.Body = append(t.ex.Body, p[:n]...)
		}
		t.mu.Unlock()
	}
	return n, err
}

func (t *teeBody) Close() error { return t.rc.Close() }

// clientOpts selects what the raw SDK client talks.
type clientOpts struct {
	Binding a2a.TransportProtocol // JSONRPC, HTTP+JSON or GRPC
	Version a2a.ProtocolVersion   // "1.0" (default) or "0.3"
	Token   string                // sent as Authorization: Bearer
}

// sdkClient resolves the card at base and builds a Go SDK client bound to
// exactly one interface of it. The recorder sees every HTTP call.
func sdkClient(t testing.TB, base string, o clientOpts) (*sdk.Client, *recorder) {
	t.Helper()
	if o.Version == "" {
		o.Version = a2a.Version
	}
	rec := &recorder{next: http.DefaultTransport}
	hc := &http.Client{Transport: rec} // no Timeout: streams live long; contexts bound calls
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	resolver := &agentcard.Resolver{Client: hc, CardParser: a2av0.NewAgentCardParser()}
	card, err := resolver.Resolve(ctx, base, agentcard.WithRequestHeader("A2A-Version", string(o.Version)))
	if err != nil {
		t.Fatalf("resolve card at %s: %v", base, err)
	}
	var iface *a2a.AgentInterface
	for _, i := range card.SupportedInterfaces {
		if i.ProtocolBinding == o.Binding && i.ProtocolVersion == o.Version {
			iface = i
			break
		}
	}
	if iface == nil {
		t.Fatalf("card at %s offers no %s %s interface: %s", base, o.Binding, o.Version, describeInterfaces(card))
	}
	only := *card
	only.SupportedInterfaces = []*a2a.AgentInterface{iface}
	opts := []sdk.FactoryOption{
		sdk.WithJSONRPCTransport(hc),
		sdk.WithRESTTransport(hc),
		a2av0.WithJSONRPCTransport(a2av0.JSONRPCTransportConfig{Client: hc}),
		a2av0.WithRESTTransport(a2av0.RESTTransportConfig{Client: hc}),
		a2agrpc.WithGRPCTransport(grpc.WithTransportCredentials(insecure.NewCredentials())),
	}
	if o.Token != "" {
		opts = append(opts, sdk.WithCallInterceptors(bearer(o.Token)))
	}
	c, err := sdk.NewFromCard(ctx, &only, opts...)
	if err != nil {
		t.Fatalf("client for %s %s at %s: %v", o.Binding, o.Version, iface.URL, err)
	}
	t.Cleanup(func() { c.Destroy() }) //nolint:errcheck // closing idle connections only
	return c, rec
}

func describeInterfaces(card *a2a.AgentCard) string {
	var b strings.Builder
	for _, i := range card.SupportedInterfaces {
		fmt.Fprintf(&b, "[%s %s %s] ", i.ProtocolBinding, i.ProtocolVersion, i.URL)
	}
	return b.String()
}

// bearer is a CallInterceptor adding Authorization: Bearer to every call.
type bearer string

func (b bearer) Before(ctx context.Context, req *sdk.Request) (context.Context, any, error) {
	req.ServiceParams.Append("Authorization", "Bearer "+string(b))
	return ctx, nil, nil
}

func (b bearer) After(context.Context, *sdk.Response) error { return nil }

// textMsg is a user message with one text part, optionally on a task.
func textMsg(taskID a2a.TaskID, text string) *a2a.Message {
	m := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))
	m.TaskID = taskID
	return m
}

// send sends text (on taskID if set) and returns the task; blocking unless
// immediate.
func send(t testing.TB, c *sdk.Client, taskID a2a.TaskID, text string, immediate bool) *a2a.Task {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req := &a2a.SendMessageRequest{Message: textMsg(taskID, text)}
	if immediate {
		req.Config = &a2a.SendMessageConfig{ReturnImmediately: true}
	}
	res, err := c.SendMessage(ctx, req)
	if err != nil {
		t.Fatalf("SendMessage %q: %v", text, err)
	}
	task, ok := res.(*a2a.Task)
	if !ok {
		t.Fatalf("SendMessage %q: got %T, want a task", text, res)
	}
	return task
}

// waitState polls GetTask until the task is in state want.
func waitState(t testing.TB, c *sdk.Client, id a2a.TaskID, want a2a.TaskState) *a2a.Task {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for {
		task, err := c.GetTask(ctx, &a2a.GetTaskRequest{ID: id})
		if err == nil && task.Status.State == want {
			return task
		}
		select {
		case <-ctx.Done():
			t.Fatalf("task %s never reached %s (last: %+v, err %v)", id, want, stateOf(task), err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func stateOf(t *a2a.Task) a2a.TaskState {
	if t == nil {
		return ""
	}
	return t.Status.State
}

// rpcError is a JSON-RPC error object as found in a response or SSE frame.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// rpcErrorIn finds the first JSON-RPC error in a body that is either one
// JSON object or an SSE stream of them.
func rpcErrorIn(body []byte) *rpcError {
	chunks := [][]byte{body}
	if bytes.Contains(body, []byte("data:")) {
		chunks = nil
		for _, line := range bytes.Split(body, []byte("\n")) {
			if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
				chunks = append(chunks, bytes.TrimSpace(d))
			}
		}
	}
	for _, c := range chunks {
		var env struct {
			Error *rpcError `json:"error"`
		}
		if json.Unmarshal(c, &env) == nil && env.Error != nil {
			return env.Error
		}
	}
	return nil
}

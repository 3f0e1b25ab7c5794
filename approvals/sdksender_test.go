package approvals

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdk "github.com/a2aproject/a2a-go/v2/a2aclient"

	"a2atop/a2aclient/a2aerr"
)

// sdkSender is a small Sender over the SDK's client for these tests (the
// real one is *a2aclient.Manager, which approvals must not import). Like
// the Manager it sends with returnImmediately and returns errors that
// carry RPCCode and HTTPStatus.
type sdkSender struct {
	mu      sync.Mutex
	clients map[string]*sdk.Client
	// replies counts Reply calls per messageId, as the client saw them.
	replies map[string]int
}

func newSDKSender() *sdkSender {
	return &sdkSender{clients: map[string]*sdk.Client{}, replies: map[string]int{}}
}

// add connects to a test agent's JSON-RPC endpoint under a name.
func (s *sdkSender) add(t *testing.T, name, url, token string) {
	t.Helper()
	hc := &http.Client{Transport: &statusRT{token: token}}
	c, err := sdk.NewFromEndpoints(context.Background(),
		[]*a2a.AgentInterface{a2a.NewAgentInterface(url, a2a.TransportProtocolJSONRPC)},
		sdk.WithJSONRPCTransport(hc))
	if err != nil {
		t.Fatalf("client for %s: %v", name, err)
	}
	s.mu.Lock()
	s.clients[name] = c
	s.mu.Unlock()
}

func (s *sdkSender) client(agent string) (*sdk.Client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.clients[agent]
	if c == nil {
		return nil, fmt.Errorf("no agent %q", agent)
	}
	return c, nil
}

func (s *sdkSender) Reply(ctx context.Context, agent string, msg *a2a.Message) (*a2a.Task, error) {
	c, err := s.client(agent)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.replies[msg.ID]++
	s.mu.Unlock()
	var st int
	ctx = context.WithValue(ctx, statusKey{}, &st)
	res, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: msg, Config: &a2a.SendMessageConfig{ReturnImmediately: true}})
	if err != nil {
		return nil, wrapErr(err, st)
	}
	if t, ok := res.(*a2a.Task); ok {
		return t, nil
	}
	return nil, nil
}

func (s *sdkSender) Get(ctx context.Context, agent string, id a2a.TaskID, historyLength int, _ bool) (*a2a.Task, error) {
	c, err := s.client(agent)
	if err != nil {
		return nil, err
	}
	req := &a2a.GetTaskRequest{ID: id}
	if historyLength > 0 {
		req.HistoryLength = &historyLength
	}
	var st int
	ctx = context.WithValue(ctx, statusKey{}, &st)
	t, err := c.GetTask(ctx, req)
	if err != nil {
		return nil, wrapErr(err, st)
	}
	return t, nil
}

type statusKey struct{}

// statusRT records the HTTP status of each call in the holder its context
// carries, and adds the bearer token.
type statusRT struct{ token string }

func (rt *statusRT) RoundTrip(r *http.Request) (*http.Response, error) {
	if rt.token != "" {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+rt.token)
	}
	resp, err := http.DefaultTransport.RoundTrip(r)
	if p, ok := r.Context().Value(statusKey{}).(*int); ok && resp != nil {
		*p = resp.StatusCode
	}
	return resp, err
}

// sentErr is the classified error the real Manager returns.
type sentErr struct {
	err    error
	code   int
	status int
}

func (e *sentErr) Error() string   { return e.err.Error() }
func (e *sentErr) Unwrap() error   { return e.err }
func (e *sentErr) RPCCode() int    { return e.code }
func (e *sentErr) HTTPStatus() int { return e.status }

func wrapErr(err error, status int) error {
	code := 0
	var ae *a2a.Error
	if errors.As(err, &ae) {
		code = a2aerr.SentinelCode(err)
	}
	if status == http.StatusOK {
		status = 0
	}
	return &sentErr{err: err, code: code, status: status}
}

package a2aclient

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"a2atop/internal/sdktest"
	"a2atop/model"
)

// echoToken is a server interceptor that refuses every call with an error
// message quoting the credentials it was sent, as careless agents do.
type echoToken struct {
	a2asrv.PassthroughCallInterceptor
}

func (echoToken) Before(ctx context.Context, cc *a2asrv.CallContext, req *a2asrv.Request) (context.Context, any, error) {
	v, _ := cc.ServiceParams().Get("authorization")
	return ctx, nil, fmt.Errorf("%w: credentials %q are not valid here", a2a.ErrInvalidParams, strings.Join(v, ","))
}

// An agent that echoes our token in its error message, and a base URL
// carrying ?api_key=: neither secret reaches the health words, Error(),
// Describe or the raw capture.
func TestSecretsEchoedByTheAgentAreRedacted(t *testing.T) {
	a := sdktest.Start(t, sdktest.JSONRPC, false, nil)
	a.Stop()
	a.H = a2asrv.NewHandler(a.Exec, a2asrv.WithTaskStore(a.Store), a2asrv.WithCallInterceptors(echoToken{}))
	a.Start()
	o := fast("echo", a.URL())
	o.Headers = []Header{{Name: "Authorization", Value: "Bearer tok-echo-4711"}}
	down := fast("down", "http://"+sdktest.FreeAddr(t)+"/?api_key=key-in-url-4712")
	m, c := runManager(t, []AgentOptions{o, down}, Options{})
	c.waitFor(t, "echo agent refused", 5*time.Second, healthIs("echo", model.HealthBackoff))
	c.waitFor(t, "down agent unreachable", 5*time.Second, healthIs("down", model.HealthUnreachable))
	_, err := m.Get(t.Context(), "echo", "t1", 0, false)
	if err == nil {
		t.Fatal("Get succeeded on a server that refuses everything")
	}
	texts := []string{err.Error(), Describe(err)}
	if !strings.Contains(Describe(err), `credentials "[redacted]" are not valid`) {
		t.Errorf("Describe(err) = %q, want the agent's words with the token redacted", Describe(err))
	}
	for _, e := range c.snapshot() {
		if e.Kind == model.EventHealth {
			texts = append(texts, e.Health.Err)
		}
	}
	for _, agent := range []string{"echo", "down"} {
		for _, ex := range m.Capture(agent) {
			texts = append(texts, ex.URL, ex.Request, ex.Response, ex.Err)
		}
	}
	var sawEcho bool
	for _, s := range texts {
		if strings.Contains(s, "4711") || strings.Contains(s, "4712") {
			t.Errorf("secret in %q", s)
		}
		sawEcho = sawEcho || strings.Contains(s, `credentials "[redacted]"`)
	}
	if !sawEcho {
		t.Errorf("the agent's echo is not in any text (the test proves nothing): %q", texts)
	}
}

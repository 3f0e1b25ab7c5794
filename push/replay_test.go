package push

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
)

// TestValidTokenReplayed: a valid token delivers only for the agent and
// the task its config was registered on: replayed at another agent's
// webhook (which has a task of the same id, and a token of its own), or
// with another task of its agent in the body, it is refused and counted
// on the row of the webhook it was posted to; nothing reaches the sink.
func TestValidTokenReplayed(t *testing.T) {
	g := newRig(t, Options{})
	hookD, tokD := g.issue(t, "deployer", "t1")
	hookP, _ := g.issue(t, "planner", "t1")
	g.issue(t, "deployer", "t2")
	for _, c := range []struct {
		name, hook string
		task       a2a.TaskID
		want       int
	}{
		{"at another agent's webhook, the same task id", hookP, "t1", http.StatusUnauthorized},
		{"another task of its agent", hookD, "t2", http.StatusUnauthorized},
		{"a task of no config", hookD, "t9", http.StatusNotFound},
	} {
		if got := post(t, c.hook, bearer(tokD), bytes.NewReader(status(c.task, a2a.TaskStateCompleted))); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
	if n := g.s.delivered(); n != 0 {
		t.Errorf("%d replayed deliveries reached the sink", n)
	}
	if d, p := g.r.Health("deployer").Rejected, g.r.Health("planner").Rejected; d != 2 || p != 1 {
		t.Errorf("refusals counted: deployer %d, planner %d; want 2 and 1", d, p)
	}
	if got := post(t, hookD, bearer(tokD), bytes.NewReader(status("t1", a2a.TaskStateCompleted))); got != http.StatusOK || g.s.delivered() != 1 {
		t.Errorf("the token on its own task: %d, delivered %d", got, g.s.delivered())
	}
}

// TestWebhookIsTheAddressPosted: the webhook a config names is the
// address that takes the delivery, served as a2atop serve serves it (a
// ServeMux with the hub beside it): it never answers with a redirect
// that would send the agent, and its token, to another address. An
// agent whose name is a dot segment ("." or "..", which every URL parser
// resolves away) gets no webhook; its row says why.
func TestWebhookIsTheAddressPosted(t *testing.T) {
	names := []string{"deployer", ".", "..", "a..b", "..x", "a/../../v1/me"}
	snk := &sink{health: map[string]model.PushHealth{}}
	srv := httptest.NewUnstartedServer(nil)
	r := New(Options{PublicURL: "http://" + srv.Listener.Addr().String(), Agents: names, Sink: snk})
	mux := http.NewServeMux() // as internal/cli's withPush and servePush mount it
	mux.Handle(Path, r)
	mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "the hub", http.StatusTeapot) }))
	srv.Config.Handler = mux
	srv.Start()
	t.Cleanup(srv.Close)
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, name := range names {
		hook, tok, err := r.Issue(name, "t1")
		if name == "." || name == ".." {
			if err == nil || !strings.Contains(err.Error(), "rename") || r.Webhook(name) != "" {
				t.Errorf("agent %q: webhook %q, %v; want none, and the error saying to rename it", name, hook, err)
			}
			r.SetOffered(name, true, "") // the card offers push: the row still says why not
			if h := r.Health(name); h.On || !strings.Contains(h.Note, "rename") {
				t.Errorf("agent %q: its row says on %v, %q", name, h.On, h.Note)
			}
			continue
		}
		if err != nil {
			t.Fatalf("agent %q: %v", name, err)
		}
		req, _ := http.NewRequest(http.MethodPost, hook, bytes.NewReader(status("t1", a2a.TaskStateCompleted)))
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("agent %q: POST %s: %d (Location %q), want 200 from the webhook itself", name, hook, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
}

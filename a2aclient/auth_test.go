package a2aclient

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/internal/sdktest"
	"a2atop/model"
)

// headerLog records the Authorization and X-Api-Key headers a server saw.
type headerLog struct {
	mu   sync.Mutex
	seen []string // "path auth"
}

func (l *headerLog) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.seen = append(l.seen, r.URL.Path+" "+r.Header.Get("Authorization")+r.Header.Get("X-Api-Key"))
		l.mu.Unlock()
		next.ServeHTTP(w, r)
	})
}

func (l *headerLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.seen...)
}

// 401 on one agent: it shows unauthorized in words, the token is never in
// the capture or the error, and the other agents carry on.
func TestUnauthorizedAgentAloneFails(t *testing.T) {
	locked := sdktest.Start(t, sdktest.JSONRPC, true, sdktest.RequireBearer("good-token-1234"))
	open := sdktest.Start(t, sdktest.GRPC, true, nil)
	lo := fast("locked", locked.URL())
	lo.Headers = []Header{{Name: "Authorization", Value: "Bearer wrong-secret-5678"}}
	m, c := runManager(t, []AgentOptions{lo, fast("open", open.URL())}, Options{})
	id := open.Send(t, "ask")
	c.waitFor(t, "open agent carries on", 5*time.Second, func(evs []model.Event) bool {
		return hasTask(evs, "open", id, a2a.TaskStateInputRequired)
	})
	c.waitFor(t, "locked agent unauthorized", 5*time.Second, healthIs("locked", model.HealthUnauthorized))
	h := lastHealth(c.snapshot(), "locked")
	if !strings.Contains(h.Err, "unauthorized") || !strings.Contains(h.Err, "401") {
		t.Errorf("health error = %q, want unauthorized words with the 401", h.Err)
	}
	caps := m.Capture("locked")
	if len(caps) == 0 {
		t.Fatal("no capture for the locked agent")
	}
	for _, ex := range caps {
		all := ex.URL + ex.Request + ex.Response + ex.Err
		if strings.Contains(all, "wrong-secret") || strings.Contains(all, "5678") {
			t.Fatalf("secret leaked into the capture: %q", all)
		}
	}
	if !strings.Contains(caps[0].Request, "Authorization: [redacted]") {
		t.Errorf("capture request lacks the redacted header: %q", caps[0].Request)
	}
	_, err := m.Get(t.Context(), "locked", "nope", 0, false)
	var coded interface{ HTTPStatus() int }
	if !asInterface(err, &coded) || coded.HTTPStatus() != 401 || strings.Contains(err.Error(), "wrong-secret") {
		t.Errorf("Get error = %v, want HTTPStatus 401 and no secret", err)
	}
}

// A card whose interface lives on another host gets no token unless the
// config names that host; the card fetch itself (same origin) gets it.
func TestTokenNotSentToUnnamedHost(t *testing.T) {
	for _, allow := range []bool{false, true} {
		t.Run(map[bool]string{false: "not-named", true: "named"}[allow], func(t *testing.T) {
			cardLog, ifaceLog := &headerLog{}, &headerLog{}
			other := sdktest.Start(t, sdktest.JSONRPC, false, ifaceLog.wrap) // serves the interface
			a := sdktest.Start(t, sdktest.JSONRPC, false, cardLog.wrap)      // serves the card
			a.Stop()
			a.Card.SupportedInterfaces[0].URL = other.URL() + "/invoke"
			a.Start()
			o := fast("a", a.URL())
			o.Headers = []Header{{Name: "X-Api-Key", Value: "key-abcdef"}}
			if allow {
				o.AllowedHosts = []string{other.Addr}
			}
			_, c := runManager(t, []AgentOptions{o}, Options{})
			id := other.Send(t, "ask")
			c.waitFor(t, "task via the other host", 5*time.Second, func(evs []model.Event) bool {
				return hasTask(evs, "a", id, a2a.TaskStateInputRequired)
			})
			var cardWithKey bool
			for _, s := range cardLog.all() {
				cardWithKey = cardWithKey || strings.HasSuffix(s, "key-abcdef")
			}
			if !cardWithKey {
				t.Errorf("card fetch on the configured origin did not carry the key: %v", cardLog.all())
			}
			var leaked int
			for _, s := range ifaceLog.all() {
				if strings.Contains(s, "key-abcdef") {
					leaked++
				}
			}
			if !allow && leaked > 0 {
				t.Errorf("key sent to a host the config did not name (%d requests)", leaked)
			}
			if allow && leaked == 0 {
				t.Errorf("key not sent to a host named in allowed_hosts")
			}
		})
	}
}

// ListTasks refused for our user (-31401 from the Go store): the agent
// says "these credentials cannot list tasks" and still polls the tasks it
// was told about.
func TestListingRefusedStillPolls(t *testing.T) {
	a := sdktest.Start(t, sdktest.JSONRPC, false, nil)
	a.Icpt.Anon = true
	id := a.Send(t, "ask")
	o := fast("a", a.URL())
	o.Tasks = []a2a.TaskID{id}
	_, c := runManager(t, []AgentOptions{o}, Options{})
	c.waitFor(t, "listing refused", 5*time.Second, func(evs []model.Event) bool {
		h := lastHealth(evs, "a")
		return h != nil && h.State == model.HealthUnauthorized && h.ListingNote == "these credentials cannot list tasks" &&
			strings.Contains(h.Err, "these credentials cannot list tasks")
	})
	c.waitFor(t, "configured task polled", 5*time.Second, func(evs []model.Event) bool {
		return hasTask(evs, "a", id, a2a.TaskStateInputRequired)
	})
}

// A bare HTTP 401 on the A2A endpoint (the card is public) is "unauthorized",
// not "cannot list tasks": it refuses everything alike.
func TestHTTP401IsNotAListingRefusal(t *testing.T) {
	guard := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost {
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	a := sdktest.Start(t, sdktest.JSONRPC, false, guard)
	_, c := runManager(t, []AgentOptions{fast("a", a.URL())}, Options{})
	c.waitFor(t, "unauthorized", 5*time.Second, healthIs("a", model.HealthUnauthorized))
	h := lastHealth(c.snapshot(), "a")
	if strings.Contains(h.Err, "cannot list") || h.ListingNote != "" || !strings.Contains(h.Err, "HTTP 401") {
		t.Errorf("health = %+v, want plain unauthorized (HTTP 401) without a listing note", h)
	}
}

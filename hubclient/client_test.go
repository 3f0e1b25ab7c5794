package hubclient

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"a2atop/approvals"
	"a2atop/hub"
)

func TestNewRefusesWhatIsNotAHubURL(t *testing.T) {
	for _, u := range []string{"", "hub.example.com", "ftp://hub", "https://user:pw@hub", "https://hub?token=x"} {
		if _, err := New(Options{URL: u, Token: "t"}); err == nil {
			t.Errorf("New(%q) accepted it", u)
		} else if strings.Contains(err.Error(), "pw") {
			t.Errorf("New(%q): the error repeats the password: %v", u, err)
		}
	}
	if _, err := New(Options{URL: "https://hub.example.com"}); err == nil || !strings.Contains(err.Error(), EnvToken) {
		t.Errorf("no token: %v", err)
	}
}

// TestRedirectsAreNotFollowed: a hub that redirects does not get the
// token sent elsewhere.
func TestRedirectsAreNotFollowed(t *testing.T) {
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			elsewhere.Add(1)
		}
	}))
	defer other.Close()
	redirecting := httptest.NewServer(http.RedirectHandler(other.URL+"/v1/me", http.StatusFound))
	defer redirecting.Close()
	c, err := New(Options{URL: redirecting.URL, Token: "tok-secret-123"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Me(context.Background()); err == nil || strings.Contains(err.Error(), "tok-secret-123") {
		t.Errorf("Me through a redirect: %v", err)
	}
	if n := elsewhere.Load(); n != 0 {
		t.Errorf("the token went to another origin %d times", n)
	}
}

// TestOutcomeErrorsAreTheSentinels: an outcome the hub sends answers
// errors.Is as a local Service's would.
func TestOutcomeErrorsAreTheSentinels(t *testing.T) {
	o := outcomeOf(hub.Outcome{Result: approvals.ResultRefused, Problem: approvals.ProblemDecided, Error: "decided by alice"}, http.StatusConflict)
	if !errors.Is(o.Err, approvals.ErrAlreadyDecided) || errors.Is(o.Err, approvals.ErrOutcomeOpen) || o.Err.Error() != "decided by alice" {
		t.Errorf("409 decided: %v", o.Err)
	}
	if o := outcomeOf(hub.Outcome{Result: approvals.ResultAccepted}, http.StatusOK); o.Err != nil {
		t.Errorf("accepted: %v", o.Err)
	}
}

// TestWaitFeed: an answer waits until the feed has passed its position,
// or stops waiting at once when the hub has another epoch now.
func TestWaitFeed(t *testing.T) {
	c, _ := New(Options{URL: "http://127.0.0.1:1", Token: "t"})
	c.setPosition("e1-5")
	go func() { time.Sleep(50 * time.Millisecond); c.setPosition("e1-9") }()
	start := time.Now()
	c.waitFeed(context.Background(), "e1-8", 5*time.Second)
	if c.lastID() != "e1-9" {
		t.Fatalf("waitFeed returned before the position: %s", c.lastID())
	}
	c.setPosition("e2-1")
	c.waitFeed(context.Background(), "e1-100", 5*time.Second)
	if time.Since(start) > 4*time.Second {
		t.Error("waitFeed waited for a position of another epoch")
	}
}

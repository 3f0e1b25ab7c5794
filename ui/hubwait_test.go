package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"

	"a2atop/hubclient"
	"a2atop/ui/internal/uitest"
)

// hubWaitFor is the waiting screen of a dashboard attached to th's hub,
// asking it with the real client as a2atop --hub does.
func hubWaitFor(t *testing.T, th *teamHub, every time.Duration) *HubWait {
	t.Helper()
	try := func(ctx context.Context) error {
		cl, err := hubclient.New(hubclient.Options{URL: th.url(), Token: teamTokens["alice"]})
		if err != nil {
			return err
		}
		_, err = cl.Me(ctx)
		return err
	}
	first := try(context.Background())
	if first == nil {
		t.Fatal("the hub answered: nothing to wait for")
	}
	return NewHubWait(context.Background(), HubWaitOptions{URL: th.url(), Why: first.Error(), Try: try, Every: every, Now: newClock().Now,
		Unreachable: func(err error) bool { var r *hubclient.UnreachableError; return errors.As(err, &r) }})
}

// TestAHubWaitOpensTheDashboardWhenTheHubAnswers: a dashboard started
// while its hub is down shows the banner of an unreachable hub (not an
// exit, not a line on stderr under the alternate screen), tries again,
// and ends attached once the hub is back on its address.
func TestAHubWaitOpensTheDashboardWhenTheHubAnswers(t *testing.T) {
	th := newTeamHub(t, newClock())
	th.stop()
	w := hubWaitFor(t, th, 50*time.Millisecond)
	tm := teatest.NewTestModel(t, w, teatest.WithInitialTermSize(120, 40))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return strings.Contains(string(b), "unreachable since") && strings.Contains(string(b), "waiting for it") &&
			strings.Contains(string(b), "(3 tries so far)")
	}, teatest.WithDuration(10*time.Second))
	th.restart()
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*HubWait)
	if !fm.Attached() || fm.Err() != nil {
		t.Fatalf("after the hub came back: attached %v, err %v", fm.Attached(), fm.Err())
	}
}

// TestAHubWaitStopsOnQ: q (or ctrl+c) ends the wait, not attached and
// without an error.
func TestAHubWaitStopsOnQ(t *testing.T) {
	th := newTeamHub(t, newClock())
	th.stop()
	w := hubWaitFor(t, th, time.Hour)
	tm := teatest.NewTestModel(t, w, teatest.WithInitialTermSize(80, 24))
	tm.Send(uitest.Key("q"))
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*HubWait)
	if fm.Attached() || fm.Err() != nil {
		t.Errorf("q: attached %v, err %v", fm.Attached(), fm.Err())
	}
}

// TestGoldenHubWait: the waiting screen at every golden size.
func TestGoldenHubWait(t *testing.T) {
	for _, sz := range goldenSizes {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			t.Cleanup(cancel)
			w := NewHubWait(ctx, HubWaitOptions{URL: "http://127.0.0.1:17717",
				Why:   "the hub at http://127.0.0.1:17717 cannot be reached: dial tcp 127.0.0.1:17717: connect: connection refused",
				Try:   func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }, // the frame stays the first one
				Every: 2 * time.Second, Now: newClock().Now})
			tm := teatest.NewTestModel(t, w, teatest.WithInitialTermSize(sz[0], sz[1]))
			out := uitest.Frame(t, tm, "stop waiting", sz[0], sz[1], true)
			golden.RequireEqual(t, []byte(out))
		})
	}
}

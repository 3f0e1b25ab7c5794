package hub_test

import (
	"context"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/approvals"
	"a2atop/hubclient"
	"a2atop/model"
)

// TestTokensNeverLeak: no operator token, nor a wrong one that was tried,
// appears in the hub's log (at debug), in the bytes of the feed, in the
// journal, or in any error a client or the hub gives.
func TestTokensNeverLeak(t *testing.T) {
	fx := newFixture(t)
	const wrong = "tok-wrong-5e4d3c2b1a09f8e7"
	var texts []string // every error text seen

	// The feed's bytes, read raw while things happen.
	req, _ := http.NewRequest(http.MethodGet, fx.srv.URL+"/v1/feed", nil)
	req.Header.Set("Authorization", "Bearer "+tokens["alice"])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	feed := make(chan []byte)
	go func() { b, _ := io.ReadAll(resp.Body); feed <- b }()

	alice, bob, carol := fx.attach("alice"), fx.attach("bob"), fx.attach("carol")
	deploy, ask := fx.ag.Start("deploy"), fx.ag.Start("ask")
	for _, d := range []*dash{alice, bob} {
		d.waitFor("both prompts", func(f *model.Fleet) bool { return d.inInbox(f, deploy) && d.inInbox(f, ask) })
	}
	// A refusal (bob may not approve), a 409 (alice second), a success.
	if o := bob.svc.Send(context.Background(), bob.prepare(deploy, approvals.Input{Kind: approvals.KindApprove})); o.Err != nil {
		texts = append(texts, o.Err.Error(), o.Words())
	}
	first := bob.prepare(ask, approvals.Input{Kind: approvals.KindReply, Text: "main"})
	second := alice.prepare(ask, approvals.Input{Kind: approvals.KindReply, Text: "release"})
	bob.svc.Send(context.Background(), first)
	if o := alice.svc.Send(context.Background(), second); o.Err != nil {
		texts = append(texts, o.Err.Error(), o.Words())
	}
	if _, err := carol.cl.Cancel(context.Background(), "agent", deploy); err != nil {
		texts = append(texts, err.Error())
	}
	if err := carol.cl.Claim(context.Background(), "agent", deploy, "approving"); err != nil {
		texts = append(texts, err.Error())
	}
	if _, err := carol.cl.Get(context.Background(), "agent", a2a.TaskID("no-such-task"), 0, false); err != nil {
		texts = append(texts, err.Error())
	}
	// A wrong token: Me, then the feed's health words while it is refused.
	bad, err := hubclient.New(hubclient.Options{URL: fx.srv.URL, Token: wrong, MinBackoff: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bad.Me(context.Background()); err == nil {
		t.Fatal("Me with a wrong token succeeded")
	} else {
		texts = append(texts, err.Error())
	}
	ctx, cancel := context.WithCancel(context.Background())
	go bad.Run(ctx)
	if _, why := bad.Connected(); why == "" {
		time.Sleep(200 * time.Millisecond)
	}
	_, why := bad.Connected()
	cancel()
	texts = append(texts, why)
	// A hub that cannot be reached.
	gone, _ := hubclient.New(hubclient.Options{URL: "http://127.0.0.1:1", Token: tokens["alice"]})
	if _, err := gone.Me(context.Background()); err != nil {
		texts = append(texts, err.Error())
	}

	time.Sleep(300 * time.Millisecond)
	resp.Body.Close()
	got := <-feed
	journal, _ := os.ReadFile(fx.journal)
	fx.stop()
	if len(got) == 0 || !strings.Contains(string(got), "snapshot-end") {
		t.Fatalf("the raw feed read %d bytes, no snapshot", len(got))
	}
	if len(texts) < 7 {
		t.Fatalf("only %d error texts collected: %q", len(texts), texts)
	}
	for name, tok := range map[string]string{"alice": tokens["alice"], "bob": tokens["bob"], "carol": tokens["carol"], "dave": tokens["dave"], "wrong": wrong} {
		if strings.Contains(fx.log.String(), tok) {
			t.Errorf("%s's token is in the hub's log", name)
		}
		if strings.Contains(string(got), tok) {
			t.Errorf("%s's token is in the feed", name)
		}
		if strings.Contains(string(journal), tok) {
			t.Errorf("%s's token is in the journal", name)
		}
		for _, e := range texts {
			if strings.Contains(e, tok) {
				t.Errorf("%s's token is in an error: %q", name, e)
			}
		}
	}
	t.Logf("checked %d bytes of feed, %d of log, %d errors:\n%s", len(got), len(fx.log.String()), len(texts), strings.Join(texts, "\n"))
}

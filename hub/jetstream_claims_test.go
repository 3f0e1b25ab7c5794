package hub_test

import (
	"context"
	"testing"
	"time"

	"a2atop/approvals/jetstore"
	"a2atop/hub"
	"a2atop/internal/agenttest"
	"a2atop/model"
)

// TestClaimsOnEveryHub: a claim taken on one hub shows on the feed of
// every hub of the team (a KV entry with a TTL); released, it ends on
// every hub; unrenewed, it ends by its time.
func TestClaimsOnEveryHub(t *testing.T) {
	c := startNATSCluster(t)
	ag := agenttest.StartAgent(t)
	const ttl = 2 * time.Second
	fxs := teamOnNATS(t, c, ag, func(st *jetstore.Store, o *hub.Options) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cl, err := st.Claims(ctx, ttl)
		if err != nil {
			t.Fatal(err)
		}
		o.Claims, o.ClaimTTL = cl, ttl
	})
	alice, dave, frank := fxs[0].attach("alice"), fxs[1].attach("dave"), fxs[2].attach("frank", asFrank)
	id := ag.Start("deploy")
	for _, d := range []*dash{alice, dave, frank} {
		d.waitFor("the deploy", func(f *model.Fleet) bool { return d.inInbox(f, id) })
	}
	claimed := func(d *dash, who string) bool { return d.claims(id, who, "approving") }
	if err := alice.cl.Claim(context.Background(), "agent", id, "approving"); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "dave, on another hub, sees alice approving", func() bool { return claimed(dave, "alice") })
	waitUntil(t, "frank, on the third hub, sees it too", func() bool { return claimed(frank, "alice") })
	if err := alice.cl.Release(context.Background(), "agent", id); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the release reaches the other hubs", func() bool { return !claimed(dave, "alice") && !claimed(frank, "alice") })

	if err := dave.cl.Claim(context.Background(), "agent", id, "approving"); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "alice sees dave approving", func() bool { return claimed(alice, "dave") })
	waitUntil(t, "dave's claim ends unrenewed on every hub", func() bool { return !claimed(alice, "dave") && !claimed(frank, "dave") })
}

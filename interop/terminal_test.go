package interop

import (
	"context"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// TestManagerSubscribeOnTerminal: a2aclient opens SubscribeToTask on a
// task it saw WORKING; a proxy holds that call until the task has been
// canceled by someone else, so the subscribe reaches the agent on a
// terminal task (JS: -32004, as a plain JSON body over JSON-RPC or a 400
// over REST; Go: -32001). a2aclient must end up with the CANCELED task,
// healthy, and must not keep re-subscribing. On gRPC the proxy fronts the
// agent's gRPC listener as well.
func TestManagerSubscribeOnTerminal(t *testing.T) {
	eachTarget(t, func(t *testing.T, tg target) {
		token := "terminal-" + tg.Name
		raw, _ := tg.client(t, token)
		long := send(t, raw, "", "long", true)
		waitState(t, raw, long.ID, a2a.TaskStateWorking)
		asked := send(t, raw, "", "ask", false) // keeps polls going on 0.3

		px := startProxy(t, tg.URL)
		px.holdSubscribes(string(long.ID))
		via := tg
		via.URL = px.URL
		if tg.SDK == a2a.TransportProtocolGRPC {
			via.AllowedHosts = []string{px.frontGRPC(t, tg.AllowedHosts[0])}
		}
		opts := via.agent("peer", token)
		opts.Subscribe = true
		opts.Tasks = []a2a.TaskID{long.ID, asked.ID}
		c := runManager(t, opts)
		c.wait(t, "a2aclient to subscribe to the WORKING task", func() bool { return px.subscribes(string(long.ID)) > 0 })

		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if got, err := raw.CancelTask(ctx, &a2a.CancelTaskRequest{ID: long.ID}); err != nil || got.Status.State != a2a.TaskStateCanceled {
			t.Fatalf("cancel by the other client: %v %v", stateOf(got), err)
		}
		px.release(string(long.ID))
		c.waitState(t, "peer", long.ID, a2a.TaskStateCanceled)

		// Let three more sweeps (or polls) happen; a2aclient must not
		// subscribe again to a task it knows is terminal.
		op := "ListTasks"
		if !tg.Listing {
			op = "tasks/get"
		}
		n := px.count(op) + px.count("GetTask")
		c.wait(t, "three more sweeps", func() bool { return px.count(op)+px.count("GetTask") >= n+3 })
		if s := px.subscribes(string(long.ID)); s != 1 {
			t.Errorf("a2aclient subscribed %d times to the task; want 1 (no re-subscribe once terminal)", s)
		}
		open := 0 // the INPUT_REQUIRED task keeps its stream where the agent allows it
		if tg.StreamsInterrupted {
			open = 1
		}
		c.wait(t, "the terminal task's stream closed and health up", func() bool {
			h := c.health["peer"]
			return h.State.Up() && h.Streams == open
		})
		if errs := c.healthErrors(); len(errs) > 0 {
			t.Logf("health errors shown on the way (the stream failed on a terminal task): %v", errs)
		}
	})
}

package interop

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/a2aclient"
	"a2atop/model"
)

// These tests drive a2atop's own a2aclient.Manager against every target.

func eachTarget(t *testing.T, f func(t *testing.T, tg target)) {
	for _, tg := range allTargets(t) {
		t.Run(tg.Name, func(t *testing.T) { f(t, tg) })
	}
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestManagerSweepsFindTasks: a2aclient finds the tasks another client
// created (same credentials), with their states, by ListTasks sweeps, or by
// GetTask polls where the agent cannot list (0.3 JSON-RPC); the COMPLETED
// task's data artifact reaches the model as its row hint.
func TestManagerSweepsFindTasks(t *testing.T) {
	eachTarget(t, func(t *testing.T, tg target) {
		token := "sweep-" + tg.Name
		raw, _ := tg.client(t, token)
		want := map[a2a.TaskID]a2a.TaskState{}
		var run a2a.TaskID
		for _, text := range []string{"ask", "approve-me", "run passed=11 failed=1", "fail", "reject"} {
			task := send(t, raw, "", text, false)
			want[task.ID] = task.Status.State
			if strings.HasPrefix(text, "run") {
				run = task.ID
			}
		}
		opts := tg.agent("peer", token)
		if !tg.Listing {
			for id := range want {
				opts.Tasks = append(opts.Tasks, id)
			}
		}
		c := runManager(t, opts)
		wantSrc := "sweep"
		if !tg.Listing {
			wantSrc = "poll"
		}
		for id, s := range want {
			c.waitState(t, "peer", id, s)
			if !c.seenVia("peer", id, s, wantSrc) {
				t.Errorf("task %s (%s) never seen from a %s", id, s, wantSrc)
			}
		}
		// The COMPLETED task's summary.json data artifact reaches the model
		// (a2aclient fetches a newly terminal task's artifacts): the row
		// hint a person sees for "completed, yet failing".
		key := model.TaskKey{Agent: "peer", ID: run}
		c.wait(t, "the run task's summary.json artifact in the fleet", func() bool {
			ft := c.Fleet.Task(key)
			return ft != nil && ft.Hint == "1 failed / 11 passed"
		})
		c.wait(t, "agent info and health", func() bool { return c.info["peer"].Binding != "" && c.health["peer"].State.Up() })
		info := c.infoOf("peer")
		if info.ProtocolVersion != string(tg.Version) || info.Binding != string(tg.SDK) {
			t.Errorf("agent info says %s %s, want %s %s", info.Binding, info.ProtocolVersion, tg.SDK, tg.Version)
		}
		if h := c.healthOf("peer"); !h.State.Up() || h.Listing != tg.Listing {
			t.Errorf("health %s listing=%v (%q), want up with listing=%v", h.State, h.Listing, h.Err, tg.Listing)
		}
	})
}

// TestManagerStreamsInterruptedTask: with Subscribe on, an INPUT_REQUIRED
// task found by a sweep is followed; a reply sent through a2aclient on the
// same taskId completes it. Where the agent keeps SubscribeToTask open on
// interrupted tasks (JS) the completion arrives on the stream; elsewhere
// a2aclient falls back to sweeps or polls.
func TestManagerStreamsInterruptedTask(t *testing.T) {
	eachTarget(t, func(t *testing.T, tg target) {
		token := "stream-" + tg.Name
		raw, _ := tg.client(t, token)
		asked := send(t, raw, "", "ask", false)
		opts := tg.agent("peer", token)
		opts.Subscribe = true
		opts.Tasks = []a2a.TaskID{asked.ID}
		c := runManager(t, opts)
		c.waitState(t, "peer", asked.ID, a2a.TaskStateInputRequired)
		if tg.StreamsInterrupted {
			c.wait(t, "an open stream on the INPUT_REQUIRED task", func() bool { return c.health["peer"].Streams > 0 })
		}
		reply := textMsg(asked.ID, "staging")
		reply.ContextID = asked.ContextID
		got, err := c.M.Reply(ctxT(t), "peer", reply)
		if err != nil {
			t.Fatalf("Reply on the same taskId: %v (%s)", err, a2aclient.Describe(err))
		}
		if got == nil || got.ID != asked.ID {
			t.Fatalf("Reply returned %+v, want task %s", got, asked.ID)
		}
		c.waitState(t, "peer", asked.ID, a2a.TaskStateCompleted)
		if tg.StreamsInterrupted {
			c.wait(t, "COMPLETED on the stream that stayed open", func() bool { return c.tasks["peer"][asked.ID].Via[a2a.TaskStateCompleted]["stream"] })
		}
		errs := c.healthErrors()
		if len(errs) > 0 {
			t.Errorf("health errors while streaming: %v", errs)
		}
	})
}

// TestManagerCancel: the long task's artifact chunks arrive on the
// stream; Cancel stops it; a second Cancel returns the
// CANCELED task without error; a Cancel on a COMPLETED task returns the
// task as it is now plus an error that is a2a.ErrTaskNotCancelable with
// RPCCode -32002.
func TestManagerCancel(t *testing.T) {
	eachTarget(t, func(t *testing.T, tg target) {
		token := "cancel-" + tg.Name
		raw, _ := tg.client(t, token)
		long := send(t, raw, "", "long", true)
		done := send(t, raw, "", "run", false)
		opts := tg.agent("peer", token)
		opts.Subscribe = true
		opts.Tasks = []a2a.TaskID{long.ID}
		c := runManager(t, opts)
		c.wait(t, "artifact chunks of the long task on the stream", func() bool {
			st := c.tasks["peer"][long.ID]
			return st != nil && st.Chunks >= 3
		})
		got, err := c.M.Cancel(ctxT(t), "peer", long.ID)
		if err != nil || got == nil || got.Status.State != a2a.TaskStateCanceled {
			t.Fatalf("Cancel: %v %v, want CANCELED", stateOf(got), err)
		}
		got, err = c.M.Cancel(ctxT(t), "peer", long.ID)
		if err != nil || got == nil || got.Status.State != a2a.TaskStateCanceled {
			t.Fatalf("second Cancel: %v %v, want the CANCELED task and no error", stateOf(got), err)
		}
		c.waitState(t, "peer", long.ID, a2a.TaskStateCanceled)
		got, err = c.M.Cancel(ctxT(t), "peer", done.ID)
		if got == nil || got.Status.State != a2a.TaskStateCompleted {
			t.Errorf("Cancel of a COMPLETED task returned %v, want the task as it is (COMPLETED)", stateOf(got))
		}
		var coder interface{ RPCCode() int }
		if !errors.Is(err, a2a.ErrTaskNotCancelable) || !errors.As(err, &coder) || coder.RPCCode() != -32002 {
			t.Errorf("Cancel of a COMPLETED task: err %v (RPCCode %d), want ErrTaskNotCancelable / -32002", err, rpcCodeOf(err))
		}
	})
}

func rpcCodeOf(err error) int {
	var coder interface{ RPCCode() int }
	if errors.As(err, &coder) {
		return coder.RPCCode()
	}
	return 0
}

// TestManagerAlwaysSendsVersion: every A2A call a2aclient makes carries
// A2A-Version with the version of the interface it talks to. The JS peer
// logs what it received; without the header it would read the call as 0.3
// (see TestJSPeerMissingVersionIsRead03). The Go agent records the same
// on its HTTP mux and gRPC interceptors. Over JSON-RPC a proxy also checks
// that the method names are those of the version's dialect.
func TestManagerAlwaysSendsVersion(t *testing.T) {
	eachTarget(t, func(t *testing.T, tg target) {
		token := "version-" + tg.Name
		raw, _ := tg.client(t, token)
		asked := send(t, raw, "", "ask", false)
		long := send(t, raw, "", "long", true)
		before := len(tg.requests())
		opts := tg.agent("peer", token)
		var px *proxy
		if tg.SDK == a2a.TransportProtocolJSONRPC { // to read the method names
			px = startProxy(t, tg.URL)
			opts.URL = px.URL
		}
		opts.Subscribe = true
		opts.Tasks = []a2a.TaskID{asked.ID, long.ID}
		c := runManager(t, opts)
		c.waitState(t, "peer", asked.ID, a2a.TaskStateInputRequired)
		if _, err := c.M.Get(ctxT(t), "peer", asked.ID, 0, true); err != nil {
			t.Fatalf("Get: %v", err)
		}
		reply := textMsg(asked.ID, "prod")
		if _, err := c.M.Reply(ctxT(t), "peer", reply); err != nil {
			t.Fatalf("Reply: %v", err)
		}
		if _, err := c.M.Cancel(ctxT(t), "peer", long.ID); err != nil {
			t.Fatalf("Cancel: %v", err)
		}
		c.waitState(t, "peer", asked.ID, a2a.TaskStateCompleted)
		var calls, card []string
		for _, r := range tg.requests()[before:] {
			if strings.Contains(r.What, "agent-card.json") {
				card = append(card, r.Version)
				continue
			}
			calls = append(calls, r.What)
			if r.Version != string(tg.Version) {
				t.Errorf("%s %s carried A2A-Version %q, want %q", r.Kind, r.What, r.Version, tg.Version)
			}
		}
		if len(calls) < 4 {
			t.Fatalf("agent saw only %d calls: %v", len(calls), calls)
		}
		t.Logf("%d calls, all with A2A-Version %s; card fetches carried %q", len(calls), tg.Version, card)
		if px == nil {
			return
		}
		// The dialect matches the version: 0.3 method names on 0.3.
		dialect := map[a2a.ProtocolVersion][]string{"1.0": {"SendMessage", "GetTask", "CancelTask"}, "0.3": {"message/send", "tasks/get", "tasks/cancel"}}
		other := map[a2a.ProtocolVersion][]string{"1.0": {"message/send", "tasks/get"}, "0.3": {"SendMessage", "GetTask", "ListTasks"}}
		for _, m := range dialect[tg.Version] {
			if px.count(m) == 0 {
				t.Errorf("no %s call seen over %s", m, tg.Version)
			}
		}
		for _, m := range other[tg.Version] {
			if px.count(m) != 0 {
				t.Errorf("%d %s calls seen over %s", px.count(m), m, tg.Version)
			}
		}
	})
}

// TestManagerReplyToUnknownTask: a reply on a task the agent does not know
// fails with ErrTaskNotFound / -32001 on every binding.
func TestManagerReplyToUnknownTask(t *testing.T) {
	eachTarget(t, func(t *testing.T, tg target) {
		c := runManager(t, tg.agent("peer", "unknown-"+tg.Name))
		_, err := c.M.Reply(ctxT(t), "peer", textMsg("no-such-task", "hello"))
		if !errors.Is(err, a2a.ErrTaskNotFound) || rpcCodeOf(err) != -32001 {
			t.Errorf("Reply on an unknown task: %v (RPCCode %d), want ErrTaskNotFound / -32001", err, rpcCodeOf(err))
		}
	})
}

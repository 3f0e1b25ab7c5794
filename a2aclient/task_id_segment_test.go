package a2aclient

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdk "github.com/a2aproject/a2a-go/v2/a2aclient"

	"a2atop/internal/sdktest"
	"a2atop/model"
)

// pushConfigRoundTrip registers a push config named sdktest.HostileConfig on
// sdktest.HostileListed through m's own client, lists, gets and deletes it, and
// checks each reached its route with the ids as its segments, the body
// naming the task as it is, and the agent finding the config by its id.
func pushConfigRoundTrip(t *testing.T, kind sdktest.Kind, m *Manager, g *sdktest.RouteGuard) (create, get, del sdktest.RouteHit) {
	t.Helper()
	ctx := t.Context()
	w, err := m.ready(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	call := func(op string, f func(ctx context.Context, cl *sdk.Client) error) {
		t.Helper()
		if err := w.call(ctx, op, f); err != nil {
			t.Fatalf("%s: %v", op, err)
		}
	}
	cfg := &a2a.PushConfig{TaskID: sdktest.HostileListed, ID: sdktest.HostileConfig, URL: "http://127.0.0.1:1/hook", Token: "t"}
	call("CreateTaskPushNotificationConfig", func(ctx context.Context, cl *sdk.Client) error {
		_, err := cl.CreateTaskPushConfig(ctx, cfg)
		return err
	})
	create = g.WaitHit(t, "POST /tasks/{id}/pushNotificationConfigs", string(sdktest.HostileListed), "")
	if create.TaskID != string(sdktest.HostileListed) {
		t.Errorf("the push config's body names task %q, want %q", create.TaskID, sdktest.HostileListed)
	}
	var list []*a2a.PushConfig
	call("ListTaskPushNotificationConfigs", func(ctx context.Context, cl *sdk.Client) (err error) {
		list, err = cl.ListTaskPushConfigs(ctx, &a2a.ListTaskPushConfigRequest{TaskID: sdktest.HostileListed})
		return err
	})
	if len(list) != 1 || list[0].TaskID != sdktest.HostileListed || list[0].ID != sdktest.HostileConfig {
		t.Errorf("ListTaskPushConfigs: %+v, want one config %q of task %q", list, sdktest.HostileConfig, sdktest.HostileListed)
	}
	var got *a2a.PushConfig
	call("GetTaskPushNotificationConfig", func(ctx context.Context, cl *sdk.Client) (err error) {
		got, err = cl.GetTaskPushConfig(ctx, &a2a.GetTaskPushConfigRequest{TaskID: sdktest.HostileListed, ID: sdktest.HostileConfig})
		return err
	})
	// A2A 0.3 answers a config with its resource name, "tasks/{id}/
	// pushNotificationConfigs/{configId}", which the SDK cannot split when
	// the task id holds a slash: it leaves the task out.
	if got == nil || got.ID != sdktest.HostileConfig || got.TaskID != sdktest.HostileListed && (kind != sdktest.LegacyREST || got.TaskID != "") {
		t.Errorf("GetTaskPushConfig: %+v, want config %q of task %q", got, sdktest.HostileConfig, sdktest.HostileListed)
	}
	get = g.WaitHit(t, "GET /tasks/{id}/pushNotificationConfigs/{configId}", string(sdktest.HostileListed), sdktest.HostileConfig)
	call("DeleteTaskPushNotificationConfig", func(ctx context.Context, cl *sdk.Client) error {
		return cl.DeleteTaskPushConfig(ctx, &a2a.DeleteTaskPushConfigRequest{TaskID: sdktest.HostileListed, ID: sdktest.HostileConfig})
	})
	del = g.WaitHit(t, "DELETE /tasks/{id}/pushNotificationConfigs/{configId}", string(sdktest.HostileListed), sdktest.HostileConfig)
	call("ListTaskPushNotificationConfigs", func(ctx context.Context, cl *sdk.Client) (err error) {
		list, err = cl.ListTaskPushConfigs(ctx, &a2a.ListTaskPushConfigRequest{TaskID: sdktest.HostileListed})
		return err
	})
	if len(list) != 0 {
		t.Errorf("after the delete the agent still lists %+v", list)
	}
	return create, get, del
}

// TestTaskIDIsOnePathSegment: on HTTP+JSON (1.0 and 0.3), every way a
// task id or a push config id reaches a URL puts it in exactly one path
// segment of the A2A route it belongs to: GetTask, CancelTask,
// SubscribeToTask, a reply on a task, push config get and delete, and
// the ids the agent's own ListTasks returns, which the watcher then
// subscribes to and gets. No request reaches any other path on the
// agent's origin.
func TestTaskIDIsOnePathSegment(t *testing.T) {
	for _, kind := range []sdktest.Kind{sdktest.REST, sdktest.LegacyREST} {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			g := &sdktest.RouteGuard{}
			a := sdktest.Start(t, kind, true, g.Wrap)
			withPush(a, t)
			createInStoreAs(a, t, sdktest.HostileListed, a2a.TaskStateWorking)
			createInStoreAs(a, t, sdktest.HostileEnded, a2a.TaskStateCompleted)
			m, c := runManager(t, []AgentOptions{fast("a", a.URL())}, Options{})
			ctx := t.Context()

			// The agent's own ids: listed, then subscribed to (working)
			// and fetched (completed), each exactly.
			c.waitFor(t, "the listed tasks, by their ids", 10*time.Second, func(evs []model.Event) bool {
				return hasTask(evs, "a", sdktest.HostileListed, a2a.TaskStateWorking) && hasTask(evs, "a", sdktest.HostileEnded, a2a.TaskStateCompleted)
			})
			sub := g.WaitHit(t, "/tasks/{idAndAction}", string(sdktest.HostileListed)+":subscribe", "")
			get := g.WaitHit(t, "GET /tasks/{idAndAction}", string(sdktest.HostileEnded), "")

			if _, err := m.Get(ctx, "a", sdktest.HostileGet, 0, false); !errors.Is(err, a2a.ErrTaskNotFound) {
				t.Errorf("Get(%q): %v, want task not found", sdktest.HostileGet, err)
			}
			getHostile := g.WaitHit(t, "GET /tasks/{idAndAction}", string(sdktest.HostileGet), "")
			if _, err := m.Cancel(ctx, "a", sdktest.HostileCancel); err == nil {
				t.Errorf("Cancel(%q) succeeded on a task that does not exist", sdktest.HostileCancel)
			}
			cancel := g.WaitHit(t, "POST /tasks/{idAndAction}", string(sdktest.HostileCancel)+":cancel", "")

			msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("answer"))
			msg.TaskID = sdktest.HostileGet
			if _, err := m.Reply(ctx, "a", msg); err == nil {
				t.Errorf("Reply on %q succeeded on a task that does not exist", sdktest.HostileGet)
			}
			reply := g.WaitHit(t, "/message:send", "", "")
			if reply.TaskID != string(sdktest.HostileGet) {
				t.Errorf("the reply reached the agent with taskId %q, want %q", reply.TaskID, sdktest.HostileGet)
			}

			pcreate, pget, pdel := pushConfigRoundTrip(t, kind, m, g)

			// The raw view names each exchange by its route, not by what
			// an id looks like (sdktest.HostileEnded ends in ":cancel").
			for _, ex := range m.Capture("a") {
				if strings.Contains(ex.URL, "ended%3Acancel") && ex.RPC != "GetTask" {
					t.Errorf("the capture calls GET %s %q, want GetTask", ex.URL, ex.RPC)
				}
			}
			for _, h := range []sdktest.RouteHit{sub, get, getHostile, cancel, reply, pcreate, pget, pdel} {
				t.Logf("on the wire: %s", h.Wire)
			}
			if s := g.StrayRequests(); len(s) > 0 {
				t.Fatalf("%d requests outside the A2A routes on the agent's origin: %q", len(s), sdktest.FirstFew(s))
			}
		})
	}
}

// unsendable are task ids a2atop refuses on every binding: each reason
// of model.CheckID once.
var unsendable = []a2a.TaskID{
	"evil\x1b]0;owned\x07",
	a2a.TaskID(strings.Repeat("x", model.MaxIDBytes+1)),
	"..",
	"\xff\xfe",
}

// TestTaskIDRefusedEveryBinding: on every binding alike, Get, Cancel and
// a reply refuse, in words, a task id a2atop cannot send faithfully, and
// nothing reaches the agent; a hostile id it can send reaches the agent
// exactly (on JSON-RPC and gRPC as a body field, unchanged by the REST
// escaping).
func TestTaskIDRefusedEveryBinding(t *testing.T) {
	for _, kind := range []sdktest.Kind{sdktest.JSONRPC, sdktest.REST, sdktest.GRPC, sdktest.Legacy, sdktest.LegacyREST} {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			g := &sdktest.RouteGuard{}
			a := sdktest.Start(t, kind, true, g.Wrap)
			m, _ := runManager(t, []AgentOptions{fast("a", a.URL())}, Options{})
			ctx := t.Context()
			if _, err := m.Get(ctx, "a", sdktest.HostileGet, 0, false); !errors.Is(err, a2a.ErrTaskNotFound) || !a.Icpt.Got(sdktest.HostileGet) {
				t.Errorf("Get(%q): %v, reached the agent as itself: %v; want task not found from the agent", sdktest.HostileGet, err, a.Icpt.Got(sdktest.HostileGet))
			}
			for _, id := range unsendable {
				msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("answer"))
				msg.TaskID = id
				_, gerr := m.Get(ctx, "a", id, 0, false)
				_, cerr := m.Cancel(ctx, "a", id)
				_, rerr := m.Reply(ctx, "a", msg)
				for op, err := range map[string]error{"Get": gerr, "Cancel": cerr, "Reply": rerr} {
					if !errors.Is(err, model.ErrBadID) || !strings.Contains(err.Error(), "not sent: task id ") {
						t.Errorf("%s(%s): %v, want the refusal in words", op, model.QuoteID(string(id)), err)
					}
				}
				if a.Icpt.Got(id) {
					t.Errorf("GetTask(%s) reached the agent", model.QuoteID(string(id)))
				}
			}
			t.Logf("refused: %v", func() error { _, err := m.Get(ctx, "a", unsendable[0], 0, false); return err }())
			if s := g.StrayRequests(); len(s) > 0 {
				t.Errorf("requests outside the A2A routes: %q", sdktest.FirstFew(s))
			}
		})
	}
}

// TestWatcherSkipsUnsendableTaskIDs: the tasks an agent's own ListTasks
// names with ids a2atop cannot send are left out (and said so in the
// log), never asked after, and do not make the agent look unwell; its
// other tasks are watched as ever.
func TestWatcherSkipsUnsendableTaskIDs(t *testing.T) {
	g := &sdktest.RouteGuard{}
	a := sdktest.Start(t, sdktest.REST, true, g.Wrap)
	for _, id := range unsendable[:2] { // the in-memory store takes these
		createInStoreAs(a, t, id, a2a.TaskStateWorking)
	}
	ok := a.CreateInStore(t, a2a.TaskStateCompleted)
	var log syncBuffer
	_, c := runManager(t, []AgentOptions{fast("a", a.URL())}, Options{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	c.waitFor(t, "the task with a good id, two sweeps and the agent's health after them", 10*time.Second, func(evs []model.Event) bool {
		h := lastHealth(evs, "a")
		return hasTask(evs, "a", ok, a2a.TaskStateCompleted) && g.Count("GET /tasks") >= 3 &&
			h != nil && h.State != model.HealthConnecting
	})
	for _, e := range c.snapshot() {
		if e.Kind == model.EventTask && slices.Contains(unsendable, e.Task.ID) {
			t.Errorf("the watcher reported task %s", model.QuoteID(string(e.Task.ID)))
		}
	}
	if h := lastHealth(c.snapshot(), "a"); h == nil || h.State != model.HealthSweeping && h.State != model.HealthStreaming || h.Err != "" {
		t.Errorf("health %+v, want sweeping or streaming, no error", h)
	}
	for _, id := range unsendable[:2] {
		if n := g.CountID(string(id)); n != 0 {
			t.Errorf("%d requests on task %s, want none", n, model.QuoteID(string(id)))
		}
	}
	if !strings.Contains(log.String(), "task id") {
		t.Errorf("the log does not say why the tasks were left out:\n%s", log.String())
	}
}

// TestWatcherDropsEventsOfUnsendableTasks: a stream's or a push's status
// and artifact events for a task a2atop cannot ask after are left out
// like its snapshots: an agent cannot slip such a task into the fleet
// (nor have a push config registered for it) through another task's
// stream.
func TestWatcherDropsEventsOfUnsendableTasks(t *testing.T) {
	w := newWatcher(AgentOptions{Name: "a"}.withDefaults(), &emitter{ch: make(chan model.Event, 8)}, slog.New(slog.DiscardHandler), 1)
	bad, good := unsendable[0], a2a.TaskID("t-1")
	for _, id := range []a2a.TaskID{bad, good} {
		w.onStreamEvent(&a2a.TaskStatusUpdateEvent{TaskID: id, Status: a2a.TaskStatus{State: a2a.TaskStateWorking}})
		w.onPush(&a2a.TaskArtifactUpdateEvent{TaskID: id, Artifact: &a2a.Artifact{ID: "log"}})
		w.onStreamEvent(&a2a.Task{ID: id, Status: a2a.TaskStatus{State: a2a.TaskStateWorking}})
	}
	close(w.em.ch)
	var got []a2a.TaskID
	for ev := range w.em.ch {
		got = append(got, eventTaskID(ev))
	}
	if want := []a2a.TaskID{good, good, good}; !slices.Equal(got, want) {
		t.Errorf("events of tasks %q, want %q", got, want)
	}
}

package a2aclient

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdk "github.com/a2aproject/a2a-go/v2/a2aclient"

	"a2atop/model"
)

// PushReceiver is the webhook that takes the agents' push notifications
// (*push.Receiver satisfies it). The watcher asks it for a webhook URL
// and a fresh token per config, and tells it what became of each.
type PushReceiver interface {
	Issue(agent string, task a2a.TaskID) (webhook, token string, err error)
	Registered(agent, token string)
	Failed(agent, token, why string)
	Retire(agent, token string)
	SetOffered(agent string, on bool, note string)
}

// The push registration's limits.
const (
	// pushRetry is how long a task whose registration failed waits
	// before it is tried again (sweeps watch it meanwhile).
	pushRetry = time.Minute
	// pushParallel bounds the push config calls in flight per agent.
	pushParallel = 4
	// pushCleanup bounds the deletion of a2atop's configs when it stops.
	pushCleanup = 10 * time.Second
)

// pushState is a watcher's push side: the pusher (nil when no receiver
// is configured) and the status the receiver last published, which every
// health event carries (guarded by watcher.mu).
type pushState struct {
	p      *pusher
	health model.PushHealth
}

// pusher registers one push config per open task of one agent whose card
// offers push, and deletes those configs (only its own) when the task
// ends or a2atop stops. It learns of tasks from the watcher's events
// (note), so it costs nothing per sweep.
type pusher struct {
	w    *watcher
	recv PushReceiver
	kick chan struct{}

	mu       sync.Mutex
	want     map[a2a.TaskID]bool // tasks to reconcile: true while open
	cfgs     map[a2a.TaskID]*pushConfig
	retryAt  map[a2a.TaskID]time.Time
	adding   map[a2a.TaskID]bool // registrations in flight
	refused  string              // set when the agent answered push is not supported
	inflight sync.WaitGroup
}

// pushConfig is one config a2atop registered.
type pushConfig struct {
	id, token, webhook string
}

// UsePush makes the manager register push configs with recv on the open
// tasks of every agent whose card offers push notifications, and deliver
// what recv accepts (Deliver). Call it before Run.
func (m *Manager) UsePush(recv PushReceiver) {
	for _, w := range m.watchers {
		w.push.p = &pusher{w: w, recv: recv, kick: make(chan struct{}, 1),
			want: map[a2a.TaskID]bool{}, cfgs: map[a2a.TaskID]*pushConfig{}, retryAt: map[a2a.TaskID]time.Time{},
			adding: map[a2a.TaskID]bool{}}
	}
}

// Deliver takes one push notification the receiver accepted for agent
// and sends it down the watcher's event path, as a stream event.
func (m *Manager) Deliver(agent string, ev a2a.Event) {
	if w := m.watchers[agent]; w != nil {
		w.onPush(ev)
	}
}

// SetPushHealth publishes agent's push status on its health events.
func (m *Manager) SetPushHealth(agent string, h model.PushHealth) {
	w := m.watchers[agent]
	if w == nil {
		return
	}
	w.mu.Lock()
	w.push.health = h
	cur := w.health
	w.mu.Unlock()
	w.setHealth(cur)
}

// onPush turns a delivery into model events, as onStreamEvent does for
// a stream's.
func (w *watcher) onPush(ev a2a.Event) {
	switch e := ev.(type) {
	case *a2a.Task:
		w.observe(e, model.SourcePush, true)
	case *a2a.TaskStatusUpdateEvent:
		w.mu.Lock()
		if m := w.tasks.get(e.TaskID); m != nil {
			ts := m.ts
			if e.Status.Timestamp != nil {
				ts = *e.Status.Timestamp
			}
			if !ts.Before(m.ts) {
				for _, id := range w.tasks.set(m, model.NormalizeState(e.Status.State), ts, time.Now()) {
					delete(w.dirty, id) // forgotten by retention, as in the model
				}
			}
		}
		w.mu.Unlock()
		if w.refs != nil && e.Status.Message != nil {
			w.refs(&a2a.Task{ID: e.TaskID, Status: e.Status})
		}
		w.emit(model.Event{Kind: model.EventStatus, Source: model.SourcePush, Status: e})
	case *a2a.TaskArtifactUpdateEvent:
		w.emit(model.Event{Kind: model.EventArtifact, Source: model.SourcePush, Artifact: e})
	}
}

// note tells the pusher what an event says of a task's life (called by
// emit for every event, before it is sent). A task the watcher holds as
// ended is never registered again: what one way says late of it, after
// another said it ended (a stale state, which the fleet ignores), or a
// state that would move it out of its end (which the fleet refuses),
// does not bring its config back.
func (p *pusher) note(ev *model.Event) {
	var id a2a.TaskID
	var st a2a.TaskState
	switch {
	case ev.Kind == model.EventAgent:
		p.poke()
		return
	case ev.Kind == model.EventGone && ev.Task != nil:
		id, st = ev.Task.ID, a2a.TaskStateCanceled
	case ev.Kind == model.EventTask && ev.Task != nil:
		id, st = ev.Task.ID, ev.Task.Status.State
	case ev.Kind == model.EventStatus && ev.Status != nil:
		id, st = ev.Status.TaskID, ev.Status.Status.State
	default:
		return
	}
	open := model.ClassOf(model.NormalizeState(st)) != model.ClassTerminal && !p.w.ended(id)
	p.mu.Lock()
	if open || p.cfgs[id] != nil || p.adding[id] || p.want[id] {
		p.want[id] = open
	}
	p.mu.Unlock()
	p.poke()
}

// ended reports whether the watcher holds task id as ended (terminal is
// final in its memory, as in the model).
func (w *watcher) ended(id a2a.TaskID) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	m := w.tasks.get(id)
	return m != nil && m.seen && model.ClassOf(m.state) == model.ClassTerminal
}

func (p *pusher) poke() {
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

// startPush starts the pusher, when there is one, among the watcher's
// goroutines (run waits for it, and so for its cleanup).
func (w *watcher) startPush(ctx context.Context) {
	if p := w.push.p; p != nil {
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			p.run(ctx)
		}()
	}
}

// run reconciles on every change, retries failed registrations, and
// deletes every config of a2atop's when ctx ends.
func (p *pusher) run(ctx context.Context) {
	retry := time.NewTicker(pushRetry / 2)
	defer retry.Stop()
	for {
		select {
		case <-ctx.Done():
			p.inflight.Wait()
			p.cleanup()
			return
		case <-p.kick:
		case <-retry.C:
			p.retryDue()
		}
		p.reconcile(ctx)
	}
}

// retryDue puts the tasks whose retry time has come back in want.
func (p *pusher) retryDue() {
	now := time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	for id, at := range p.retryAt {
		if !now.Before(at) {
			p.want[id] = true
		}
	}
}

// reconcile registers a config on each open task that has none and
// deletes the config of each task that ended.
func (p *pusher) reconcile(ctx context.Context) {
	name := p.w.o.Name
	info := p.w.currentInfo()
	if info == nil || p.w.getClient() == nil {
		return // not connected yet: the agent event will poke us
	}
	p.mu.Lock()
	refused := p.refused
	p.mu.Unlock()
	switch {
	case !info.Push:
		p.recv.SetOffered(name, false, "the agent's card does not offer push notifications")
	case refused != "":
		p.recv.SetOffered(name, false, refused)
	default:
		p.recv.SetOffered(name, true, "")
	}
	p.mu.Lock()
	want := p.want
	p.want = map[a2a.TaskID]bool{}
	var add, del []a2a.TaskID
	now := time.Now()
	for id, open := range want {
		switch {
		case open && p.cfgs[id] == nil && info.Push && refused == "" && !now.Before(p.retryAt[id]):
			add = append(add, id)
			p.adding[id] = true
		case !open && p.cfgs[id] != nil:
			del = append(del, id)
		case !open:
			delete(p.retryAt, id)
		}
	}
	p.mu.Unlock()
	sem := make(chan struct{}, pushParallel)
	for _, id := range del {
		p.spawn(sem, func() { p.unregister(ctx, id) })
	}
	for _, id := range add {
		p.spawn(sem, func() { p.register(ctx, id) })
	}
	p.inflight.Wait()
}

func (p *pusher) spawn(sem chan struct{}, f func()) {
	sem <- struct{}{}
	p.inflight.Add(1)
	go func() {
		defer func() { <-sem; p.inflight.Done() }()
		f()
	}()
}

// register creates one config on task id: a fresh token, as the config's
// token and as its Bearer authentication, and an id of a2atop's own.
func (p *pusher) register(ctx context.Context, id a2a.TaskID) {
	w, name := p.w, p.w.o.Name
	defer func() {
		p.mu.Lock()
		delete(p.adding, id)
		p.mu.Unlock()
	}()
	webhook, token, err := p.recv.Issue(name, id)
	if err != nil {
		w.log.Debug("push: no config for the task", "task", id, "err", err)
		return
	}
	p.dropStale(ctx, id, webhook)
	cfg := &a2a.PushConfig{TaskID: id, Tenant: w.o.Tenant, ID: pushIDPrefix + randomHex(8), URL: webhook, Token: token,
		Auth: &a2a.PushAuthInfo{Scheme: "Bearer", Credentials: token}}
	var got *a2a.PushConfig
	err = w.call(ctx, "CreateTaskPushNotificationConfig", func(ctx context.Context, cl *sdk.Client) (err error) {
		got, err = cl.CreateTaskPushConfig(ctx, cfg)
		return err
	})
	if err != nil {
		why := "registration refused: " + Describe(err)
		p.recv.Failed(name, token, why)
		p.mu.Lock()
		switch {
		case errors.Is(err, a2a.ErrPushNotificationNotSupported):
			p.refused = "the agent refuses push notifications: " + Describe(err)
		case errors.Is(err, a2a.ErrTaskNotFound):
		default:
			p.retryAt[id] = time.Now().Add(pushRetry)
		}
		p.mu.Unlock()
		w.log.Info("push: registration failed; the task is swept as before", "task", id, "err", Describe(err))
		return
	}
	c := &pushConfig{id: cfg.ID, token: token, webhook: webhook}
	if got != nil && got.ID != "" && got.ID != cfg.ID {
		if plainConfigID(got.ID) {
			c.id = got.ID
		} else {
			w.log.Warn("push: the agent named a2atop's config with an id that is not a plain URL path segment; a2atop never puts it in a request (the config ends with its task)", "task", id)
		}
	}
	p.mu.Lock()
	p.cfgs[id] = c
	delete(p.retryAt, id)
	p.mu.Unlock()
	p.recv.Registered(name, token)
	w.log.Debug("push: config registered", "task", id, "config", c.id)
}

// pushIDPrefix starts the id of every config a2atop registers.
const pushIDPrefix = "a2atop-"

// plainConfigID reports whether id, a push config's id as the agent
// names it, can go into a request as one URL path segment and stay one:
// the SDK's HTTP+JSON client (v2.4.0) joins it into the path as it is,
// so "../../other-agent/…" would leave the agent's interface (another
// agent behind the same gateway, with this one's credentials) and "?"
// or "#" would change the request. Letters, digits and -._~:@+= only,
// at most 256 bytes, and not a dot segment.
func plainConfigID(id string) bool {
	if id == "" || len(id) > 256 || id == "." || id == ".." {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~:@+=", c) >= 0) {
			return false
		}
	}
	return true
}

// dropStale deletes the configs an earlier run of a2atop left on task id
// (it was killed before it could): an id of a2atop's and this very
// webhook, whose token this run never issued, so that the agent does not
// keep POSTing what the webhook must refuse. Nothing else is touched.
func (p *pusher) dropStale(ctx context.Context, id a2a.TaskID, webhook string) {
	w := p.w
	var list []*a2a.PushConfig
	if err := w.call(ctx, "ListTaskPushNotificationConfigs", func(ctx context.Context, cl *sdk.Client) (err error) {
		list, err = cl.ListTaskPushConfigs(ctx, &a2a.ListTaskPushConfigRequest{TaskID: id, Tenant: w.o.Tenant})
		return err
	}); err != nil {
		return
	}
	for _, c := range list {
		if c == nil || c.URL != webhook || !strings.HasPrefix(c.ID, pushIDPrefix) || !plainConfigID(c.ID) {
			continue
		}
		err := w.call(ctx, "DeleteTaskPushNotificationConfig", func(ctx context.Context, cl *sdk.Client) error {
			return cl.DeleteTaskPushConfig(ctx, &a2a.DeleteTaskPushConfigRequest{TaskID: id, ID: c.ID, Tenant: w.o.Tenant})
		})
		w.log.Info("push: a config of an earlier run deleted", "task", id, "config", c.ID, "err", Describe(err))
	}
}

// unregister deletes a2atop's config on task id: it lists the task's
// configs and deletes the one with a2atop's id and webhook (another
// client's configs are never touched). A config the agent no longer
// lists has gone with its task.
func (p *pusher) unregister(ctx context.Context, id a2a.TaskID) {
	w, name := p.w, p.w.o.Name
	p.mu.Lock()
	c := p.cfgs[id]
	p.mu.Unlock()
	if c == nil {
		return
	}
	var list []*a2a.PushConfig
	lerr := w.call(ctx, "ListTaskPushNotificationConfigs", func(ctx context.Context, cl *sdk.Client) (err error) {
		list, err = cl.ListTaskPushConfigs(ctx, &a2a.ListTaskPushConfigRequest{TaskID: id, Tenant: w.o.Tenant})
		return err
	})
	listed := lerr != nil // when the list fails, delete by our id all the same
	for _, l := range list {
		if l != nil && l.ID == c.id && l.URL == c.webhook {
			listed = true
		}
	}
	if listed && !errors.Is(lerr, a2a.ErrTaskNotFound) {
		err := w.call(ctx, "DeleteTaskPushNotificationConfig", func(ctx context.Context, cl *sdk.Client) error {
			return cl.DeleteTaskPushConfig(ctx, &a2a.DeleteTaskPushConfigRequest{TaskID: id, ID: c.id, Tenant: w.o.Tenant})
		})
		if err != nil && !errors.Is(err, a2a.ErrTaskNotFound) {
			w.log.Info("push: deleting a2atop's config failed; it ends with its task", "task", id, "config", c.id, "err", Describe(err))
		}
	}
	p.mu.Lock()
	delete(p.cfgs, id)
	p.mu.Unlock()
	p.recv.Retire(name, c.token)
}

// cleanup deletes every config a2atop holds on the agent (a2atop stops).
func (p *pusher) cleanup() {
	ctx, cancel := context.WithTimeout(context.Background(), pushCleanup)
	defer cancel()
	p.mu.Lock()
	ids := make([]a2a.TaskID, 0, len(p.cfgs))
	for id := range p.cfgs {
		ids = append(ids, id)
	}
	p.mu.Unlock()
	sem := make(chan struct{}, pushParallel)
	for _, id := range ids {
		p.spawn(sem, func() { p.unregister(ctx, id) })
	}
	p.inflight.Wait()
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// TryPush asks agent to take one push config on task, pointing at
// webhook with a throwaway token, and deletes it at once: whether the
// agent takes a2atop's configs (a2atop check). The error is the agent's
// answer to the registration, or to the deletion.
func (m *Manager) TryPush(ctx context.Context, agent string, task a2a.TaskID, webhook string) error {
	w, err := m.ready(ctx, agent)
	if err != nil {
		return err
	}
	token := randomHex(32)
	cfg := &a2a.PushConfig{TaskID: task, Tenant: w.o.Tenant, ID: pushIDPrefix + "check-" + randomHex(8), URL: webhook, Token: token,
		Auth: &a2a.PushAuthInfo{Scheme: "Bearer", Credentials: token}}
	var got *a2a.PushConfig
	err = w.call(ctx, "CreateTaskPushNotificationConfig", func(ctx context.Context, cl *sdk.Client) (err error) {
		got, err = cl.CreateTaskPushConfig(ctx, cfg)
		return err
	})
	if err != nil {
		return err
	}
	if got != nil && got.ID != "" && plainConfigID(got.ID) {
		cfg.ID = got.ID
	}
	return w.call(ctx, "DeleteTaskPushNotificationConfig", func(ctx context.Context, cl *sdk.Client) error {
		return cl.DeleteTaskPushConfig(ctx, &a2a.DeleteTaskPushConfigRequest{TaskID: task, ID: cfg.ID, Tenant: w.o.Tenant})
	})
}

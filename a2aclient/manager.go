package a2aclient

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdk "github.com/a2aproject/a2a-go/v2/a2aclient"

	"a2atop/a2aclient/edge"
	"a2atop/model"
)

// Manager watches a set of agents and performs operations on them. Create
// it with New, start it with Run, drain Events. All methods are safe for
// concurrent use; Get, Reply, Cancel, Watch and Capture work before Run
// too (Get, Reply and Cancel resolve the card on demand).
type Manager struct {
	o        Options
	em       *emitter
	order    []string
	watchers map[string]*watcher
	runOnce  sync.Once
}

// New builds a Manager for agents. Agent names must be unique; a repeated
// name keeps its first entry.
func New(agents []AgentOptions, o Options) *Manager {
	o = o.withDefaults()
	m := &Manager{
		o:        o,
		em:       &emitter{ch: make(chan model.Event, o.Buffer), wait: o.SendWait},
		watchers: map[string]*watcher{},
	}
	budget := newStreamBudget(o.MaxStreams)
	for _, a := range agents {
		if _, dup := m.watchers[a.Name]; dup {
			o.Logger.Warn("duplicate agent name ignored", "agent", a.Name)
			continue
		}
		m.order = append(m.order, a.Name)
		w := newWatcher(a.withDefaults(), m.em, o.Logger, o.CaptureN)
		key := a.ChainMetadataKey
		w.refs = func(t *a2a.Task) { m.followRefs(t, key) }
		w.budget, w.order = budget, len(m.order)-1
		m.watchers[a.Name] = w
	}
	for _, w := range m.watchers {
		w.c.ring.SetLimit(edge.CaptureShare(len(m.watchers)))
	}
	return m
}

// Run starts one watcher per agent and returns when ctx is done and all of
// them have stopped. It may be called once.
func (m *Manager) Run(ctx context.Context) {
	m.runOnce.Do(func() {
		var wg sync.WaitGroup
		for _, name := range m.order {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_ = m.RunAgent(ctx, name)
			}()
		}
		wg.Wait()
	})
}

// Events is the channel every watcher sends to. The consumer should drain
// everything waiting in batches. A consumer that falls behind loses no
// state: watchers coalesce to a resweep when the channel stays full.
func (m *Manager) Events() <-chan model.Event { return m.em.ch }

// Agents returns the configured agent names in configuration order.
func (m *Manager) Agents() []string { return append([]string(nil), m.order...) }

// Capture returns the last exchanges with agent (secrets redacted), newest last.
func (m *Manager) Capture(agent string) []model.Exchange {
	w := m.watchers[agent]
	if w == nil {
		return nil
	}
	return w.c.ring.Snapshot(w.c.red)
}

// Watch adds a task to the agent's watched set: it is polled (or swept)
// and streamed like any other, even when the agent cannot list tasks.
func (m *Manager) Watch(agent string, id a2a.TaskID) {
	if w := m.watchers[agent]; w != nil && id != "" {
		w.remember(id, false)
	}
}

func (m *Manager) watcher(agent string) (*watcher, error) {
	w := m.watchers[agent]
	if w == nil {
		return nil, &Error{Agent: agent, Op: "lookup", Err: ErrUnknownAgent}
	}
	return w, nil
}

// ready returns the watcher with a connected client, connecting if needed.
func (m *Manager) ready(ctx context.Context, agent string) (*watcher, error) {
	w, err := m.watcher(agent)
	if err != nil {
		return nil, err
	}
	if w.getClient() == nil {
		if err := w.connect(ctx); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// Get fetches a task. historyLength 0 uses the agent's configured
// HistoryLength (0 there = the server's default); withArtifacts false
// drops artifacts from the result. A copy of the snapshot is also sent to
// Events: the returned task is the caller's own, as with Reply and Cancel.
func (m *Manager) Get(ctx context.Context, agent string, id a2a.TaskID, historyLength int, withArtifacts bool) (*a2a.Task, error) {
	w, err := m.ready(ctx, agent)
	if err != nil {
		return nil, err
	}
	if historyLength == 0 {
		historyLength = w.o.HistoryLength
	}
	if historyLength == 0 {
		historyLength = -1 // server default
	}
	t, err := w.getTask(ctx, id, historyLength)
	if err != nil {
		if errors.Is(err, a2a.ErrTaskNotFound) {
			w.gone(id)
		}
		return nil, err
	}
	if !withArtifacts {
		t.Artifacts = nil
	}
	w.remember(id, withArtifacts)
	w.observe(ownCopy(t), model.SourcePoll, withArtifacts)
	return t, nil
}

// Reply sends msg as given (its messageId, taskId and contextId are the
// caller's) with returnImmediately, so the call does not wait for the
// task's next interrupted or terminal state. It returns the task (a copy
// goes to Events), or nil when the agent answered with a Message.
func (m *Manager) Reply(ctx context.Context, agent string, msg *a2a.Message) (*a2a.Task, error) {
	w, err := m.ready(ctx, agent)
	if err != nil {
		return nil, err
	}
	if w.o.ReadOnly {
		return nil, &Error{Agent: agent, Op: "SendMessage", URL: w.o.URL, Err: ErrReadOnly, red: w.c.red}
	}
	if msg == nil || msg.ID == "" {
		return nil, &Error{Agent: agent, Op: "SendMessage", Err: fmt.Errorf("%w: the message needs a messageId", a2a.ErrInvalidParams)}
	}
	req := &a2a.SendMessageRequest{Message: msg, Tenant: w.o.Tenant, Config: &a2a.SendMessageConfig{ReturnImmediately: true}}
	var res a2a.SendMessageResult
	err = w.call(ctx, "SendMessage", func(ctx context.Context, cl *sdk.Client) (err error) {
		res, err = cl.SendMessage(ctx, req)
		return err
	})
	if err != nil {
		return nil, err
	}
	t, ok := res.(*a2a.Task)
	if !ok || t == nil {
		return nil, nil
	}
	w.observe(ownCopy(t), model.SourceReply, true)
	w.remember(t.ID, false)
	return t, nil
}

// Cancel asks the agent to cancel a task. When that fails it asks GetTask
// what the task is now and returns both: the task (nil if GetTask failed
// too) and the cancel error (a2a.ErrTaskNotCancelable when it had ended).
// A copy of the task goes to Events.
func (m *Manager) Cancel(ctx context.Context, agent string, id a2a.TaskID) (*a2a.Task, error) {
	w, err := m.ready(ctx, agent)
	if err != nil {
		return nil, err
	}
	if w.o.ReadOnly {
		return nil, &Error{Agent: agent, Op: "CancelTask", URL: w.o.URL, Err: ErrReadOnly, red: w.c.red}
	}
	var t *a2a.Task
	cerr := w.call(ctx, "CancelTask", func(ctx context.Context, cl *sdk.Client) (err error) {
		t, err = cl.CancelTask(ctx, &a2a.CancelTaskRequest{ID: id, Tenant: w.o.Tenant})
		return err
	})
	if cerr == nil && t != nil {
		w.observe(ownCopy(t), model.SourceReply, true)
		w.remember(id, false)
		return t, nil
	}
	now, gerr := w.getTask(ctx, id, 0)
	if gerr == nil {
		w.observe(ownCopy(now), model.SourcePoll, true)
	}
	if cerr == nil {
		cerr = gerr
	}
	return now, cerr
}

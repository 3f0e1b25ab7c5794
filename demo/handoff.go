package demo

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
)

// Why a hand-off: in the Go SDK, AUTH_REQUIRED is not a final event, so the
// execution that asked keeps running and the SDK refuses any new message on
// the task with -32603 "task execution is already in progress". Ending the
// execution at AUTH_REQUIRED instead is not possible either: an executor
// that returns without a final event leaves the task hanging until the
// inactivity timeout fails it. So the waiting executor keeps running and a
// CallInterceptor hands it the decision: it recognises a SendMessage on a
// task that waits for one, parses it, delivers it over a channel, and
// answers with the task once the executor has recorded the message in the
// task's history (where a client reconciling an unknown outcome looks for
// its messageId).

// decision is an answer to an AUTH_REQUIRED question.
type decision struct {
	approve bool
	reason  string
	by      string       // who decided: the approver, or the change ticket
	msg     *a2a.Message // the message that carried it; nil when out of band
}

// gate is one task waiting in AUTH_REQUIRED.
type gate struct {
	contextID string
	decisions chan decision // buffered 1: at most one decision is ever delivered
	redirect  string        // set for tasks that take no decision: says where to send it
}

// gates are the tasks of one agent that wait for a decision.
type gates struct {
	mu   sync.Mutex
	open map[a2a.TaskID]*gate
}

func newGates() *gates { return &gates{open: map[a2a.TaskID]*gate{}} }

// wait registers task id as waiting for a decision.
func (g *gates) wait(id a2a.TaskID, contextID string) *gate {
	gt := &gate{contextID: contextID, decisions: make(chan decision, 1)}
	g.mu.Lock()
	g.open[id] = gt
	g.mu.Unlock()
	return gt
}

// redirectTo registers task id as waiting on another task: messages to it
// are refused with text, which says where the decision goes.
func (g *gates) redirectTo(id a2a.TaskID, contextID, text string) {
	g.mu.Lock()
	g.open[id] = &gate{contextID: contextID, redirect: text}
	g.mu.Unlock()
}

func (g *gates) remove(id a2a.TaskID) {
	g.mu.Lock()
	delete(g.open, id)
	g.mu.Unlock()
}

func (g *gates) lookup(id a2a.TaskID) *gate {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.open[id]
}

// deliver hands d to the task waiting on id and closes its gate. It reports
// false when no task waits there (already decided, canceled or gone).
func (g *gates) deliver(id a2a.TaskID, d decision) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	gt := g.open[id]
	if gt == nil || gt.decisions == nil {
		return false
	}
	delete(g.open, id)
	gt.decisions <- d
	return true
}

// handoff is the server CallInterceptor that delivers decisions sent as
// messages to the executor waiting on the task.
type handoff struct {
	a2asrv.PassthroughCallInterceptor
	agent string
	gates *gates
	store taskstore.Store
}

// answerTimeout bounds how long a blocking SendMessage waits for the task
// to reach a terminal or interrupted state after a decision.
const answerTimeout = 30 * time.Second

// Before implements a2asrv.CallInterceptor.
func (h *handoff) Before(ctx context.Context, _ *a2asrv.CallContext, req *a2asrv.Request) (context.Context, any, error) {
	sm, ok := req.Payload.(*a2a.SendMessageRequest)
	if !ok || sm == nil || sm.Message == nil || sm.Message.TaskID == "" {
		return ctx, nil, nil
	}
	msg := sm.Message
	stored, err := h.store.Get(ctx, msg.TaskID)
	if err != nil {
		return ctx, nil, nil // let the SDK answer (task not found, ...)
	}
	if msg.ID != "" && slices.ContainsFunc(stored.Task.History, func(m *a2a.Message) bool { return m.ID == msg.ID }) {
		return ctx, trimHistory(stored.Task, sm.Config), nil // a retry of a message already taken: same answer
	}
	g := h.gates.lookup(msg.TaskID)
	if g == nil || stored.Task.Status.State != a2a.TaskStateAuthRequired {
		return ctx, nil, nil
	}
	if msg.ContextID != "" && msg.ContextID != g.contextID {
		return ctx, nil, fmt.Errorf("%s task %s belongs to context %s, not %s: %w", h.agent, msg.TaskID, g.contextID, msg.ContextID, a2a.ErrInvalidParams)
	}
	if g.redirect != "" {
		return ctx, nil, fmt.Errorf("%s: %w", g.redirect, a2a.ErrUnsupportedOperation)
	}
	if msg.ID == "" {
		return ctx, nil, fmt.Errorf("message ID is required: %w", a2a.ErrInvalidParams)
	}
	d, err := parseDecision(msg)
	if err != nil {
		return ctx, nil, fmt.Errorf("%s task %s waits for approval: %w: %w", h.agent, msg.TaskID, err, a2a.ErrInvalidParams)
	}
	if !h.gates.deliver(msg.TaskID, d) {
		return ctx, nil, nil // decided in the meantime: the SDK says why not
	}
	task, err := h.await(ctx, msg.TaskID, msg.ID, sm.Config)
	if err != nil {
		return ctx, nil, err
	}
	return ctx, task, nil
}

// await polls the store until the executor has recorded message msgID and,
// unless the caller asked to return immediately, the task has reached a
// terminal or interrupted state again.
func (h *handoff) await(ctx context.Context, id a2a.TaskID, msgID string, cfg *a2a.SendMessageConfig) (*a2a.Task, error) {
	immediate := cfg != nil && cfg.ReturnImmediately
	deadline := time.NewTimer(answerTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		st, err := h.store.Get(ctx, id)
		if err == nil {
			t := st.Task
			recorded := slices.ContainsFunc(t.History, func(m *a2a.Message) bool { return m.ID == msgID })
			settled := t.Status.State.Terminal() || t.Status.State == a2a.TaskStateInputRequired || t.Status.State == a2a.TaskStateAuthRequired
			if recorded && (immediate || settled) {
				return trimHistory(t, cfg), nil
			}
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-deadline.C:
			if err != nil {
				return nil, fmt.Errorf("%s task %s: read after decision: %w", h.agent, id, err)
			}
			return trimHistory(st.Task, cfg), nil
		case <-tick.C:
		}
	}
}

func trimHistory(t *a2a.Task, cfg *a2a.SendMessageConfig) *a2a.Task {
	if cfg == nil || cfg.HistoryLength == nil {
		return t
	}
	if n := *cfg.HistoryLength; n >= 0 && n < len(t.History) {
		t.History = t.History[len(t.History)-n:]
	}
	return t
}

var firstWordRE = regexp.MustCompile(`^\s*([A-Za-z]+)`)

// errNoDecision says what a decision looks like.
var errNoDecision = errors.New(`send a data part {"decision":"approve"|"deny","reason":"..."} or text starting with "approve" or "deny"`)

// parseDecision reads a data part {"decision": "approve"|"deny", "reason",
// "approver"} or text starting with approve/approved/deny/denied (the rest
// of the text is the reason).
func parseDecision(m *a2a.Message) (decision, error) {
	for _, p := range m.Parts {
		obj, ok := p.Data().(map[string]any)
		if !ok {
			continue
		}
		v, _ := obj["decision"].(string)
		if v == "" {
			continue
		}
		approve, ok := verdict(v)
		if !ok {
			return decision{}, fmt.Errorf("decision %q is neither approve nor deny: %w", v, errNoDecision)
		}
		reason, _ := obj["reason"].(string)
		by, _ := obj["approver"].(string)
		return decision{approve: approve, reason: reason, by: by, msg: m}, nil
	}
	text := textOf(m)
	w := firstWordRE.FindStringSubmatch(text)
	if w == nil {
		return decision{}, errNoDecision
	}
	approve, ok := verdict(w[1])
	if !ok {
		return decision{}, errNoDecision
	}
	reason := strings.TrimLeft(strings.TrimSpace(text)[len(w[1]):], " \t:,.;-")
	return decision{approve: approve, reason: strings.TrimSpace(reason), msg: m}, nil
}

func verdict(w string) (approve, ok bool) {
	switch strings.ToLower(strings.TrimSpace(w)) {
	case "approve", "approved":
		return true, true
	case "deny", "denied":
		return false, true
	}
	return false, false
}

// recordDecision is the event that takes a task out of AUTH_REQUIRED. For
// a decision that came as a message it is the whole task: the question
// moves to history, the decision message follows it, the status becomes
// state/text, so the message and the state change land in one update.
func recordDecision(ctx context.Context, store taskstore.Store, ec *a2asrv.ExecutorContext, d decision, state a2a.TaskState, text string) a2a.Event {
	if d.msg == nil {
		return status(ec, state, text)
	}
	st, err := store.Get(ctx, ec.TaskID)
	if err != nil {
		return status(ec, state, text)
	}
	t := st.Task
	if t.Status.Message != nil {
		t.History = append(t.History, t.Status.Message)
	}
	m := *d.msg
	m.TaskID, m.ContextID = t.ID, t.ContextID
	t.History = append(t.History, &m)
	now := time.Now()
	t.Status = a2a.TaskStatus{State: state, Message: say(ec, text), Timestamp: &now}
	return t
}

// decidedBy names who decided, for status texts.
func (d decision) who() string {
	switch {
	case d.by != "":
		return d.by
	case d.msg != nil:
		return "message"
	}
	return "out of band"
}

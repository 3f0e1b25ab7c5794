package push

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
)

// Path is where the Receiver serves: the webhook of agent A is
// PublicURL + Path + url.PathEscape(A).
const Path = "/push/"

// The defaults of Options' zero fields.
const (
	DefaultMaxBody     = 8 << 20
	DefaultGrace       = time.Minute
	DefaultMaxInFlight = 16
	DefaultMaxConfigs  = 1000
	DefaultPublish     = 100 * time.Millisecond
	// readTimeout bounds how long one delivery may take to send its body.
	readTimeout = 30 * time.Second
)

// Sink is where accepted deliveries and the agents' push status go:
// *a2aclient.Manager satisfies it. Both must return quickly.
type Sink interface {
	// Deliver hands one validated delivery for agent to its watcher.
	Deliver(agent string, ev a2a.Event)
	// SetPushHealth publishes the agent's push status (its row).
	SetPushHealth(agent string, h model.PushHealth)
}

// Options configure a Receiver. PublicURL, Agents and Sink are required.
type Options struct {
	// PublicURL is the base URL the agents reach this receiver at (the
	// hub's address, or push_public_url); Path is appended to it.
	PublicURL string
	// Agents are the configured agent names; a POST for any other is 404.
	Agents []string
	// Sink receives deliveries and statuses.
	Sink Sink
	// Logger receives what was refused and why; never a token. Nil discards.
	Logger *slog.Logger
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// MaxBody bounds one delivery's body; 0 = 8 MiB.
	MaxBody int64
	// Grace is how long a token is still accepted after its config was
	// deleted (a delivery the agent sent just before); 0 = 1m.
	Grace time.Duration
	// MaxInFlight bounds the bodies read at once; more get 503. 0 = 16.
	MaxInFlight int
	// MaxConfigs bounds the live configs of one agent; 0 = 1000.
	MaxConfigs int
	// Publish is how long status changes gather before they are
	// published; 0 = 100ms.
	Publish time.Duration
}

func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MaxBody <= 0 {
		o.MaxBody = DefaultMaxBody
	}
	if o.Grace <= 0 {
		o.Grace = DefaultGrace
	}
	if o.MaxInFlight <= 0 {
		o.MaxInFlight = DefaultMaxInFlight
	}
	if o.MaxConfigs <= 0 {
		o.MaxConfigs = DefaultMaxConfigs
	}
	if o.Publish <= 0 {
		o.Publish = DefaultPublish
	}
	o.PublicURL = strings.TrimRight(o.PublicURL, "/")
	return o
}

// Receiver is the webhook: it issues tokens, validates deliveries and
// keeps each agent's push status. Build it with New and serve it (it is
// an http.Handler) at Path. All methods are safe for concurrent use.
type Receiver struct {
	o    Options
	log  *slog.Logger
	busy chan struct{}

	mu      sync.Mutex
	agents  map[string]*agentState
	tickets map[[sha256.Size]byte]*ticket
	retired []*ticket // oldest first, until their grace ends
	unknown int       // POSTs naming no configured agent
}

// agentState is one agent's side of the receiver. Guarded by Receiver.mu.
type agentState struct {
	name    string
	webhook string
	h       model.PushHealth
	tasks   map[a2a.TaskID]int // live tickets per task
	live    int
	pending bool // a publish is scheduled
}

// ticket is one token a2atop issued for one config. Guarded by Receiver.mu.
type ticket struct {
	key        [sha256.Size]byte
	agent      string
	task       a2a.TaskID
	token      []byte
	registered bool
	retired    time.Time // zero while the config lives
}

// ErrUnknownAgent is returned by Issue for an agent not in Options.Agents.
var ErrUnknownAgent = errors.New("push: not a configured agent")

// ErrFull is returned by Issue when the agent holds MaxConfigs configs.
var ErrFull = errors.New("push: too many configs on this agent")

// New builds a Receiver.
func New(o Options) *Receiver {
	o = o.withDefaults()
	r := &Receiver{o: o, log: o.Logger, busy: make(chan struct{}, o.MaxInFlight),
		agents: map[string]*agentState{}, tickets: map[[sha256.Size]byte]*ticket{}}
	for _, name := range o.Agents {
		a := &agentState{name: name, tasks: map[a2a.TaskID]int{}}
		if dotSegment(name) {
			a.h.Note = noWebhook(name)
		} else {
			a.webhook = o.PublicURL + Path + url.PathEscape(name)
		}
		r.agents[name] = a
	}
	return r
}

// dotSegment reports whether name, as the last segment of a URL path,
// is one every URL parser resolves away ("." or ".."; escaping does not
// help, %2E is a dot to WHATWG's parser): its webhook would be another
// address, which the agent would be redirected to or POST to directly,
// its token with it.
func dotSegment(name string) bool { return name == "." || name == ".." }

// noWebhook says why the agent called name has no webhook.
func noWebhook(name string) string {
	return fmt.Sprintf("no push: an agent named %q cannot have a webhook URL (a URL resolves it away); rename it in the config to use push", name)
}

// Webhook is the URL agent's configs point at; "" for an unknown agent.
func (r *Receiver) Webhook(agent string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if a := r.agents[agent]; a != nil {
		return a.webhook
	}
	return ""
}

// Issue makes a fresh random token for a new config on agent's task and
// returns the webhook URL and the token. The token is valid from now on
// (an agent may deliver before its answer to the registration arrives)
// until Failed or Retire (and Grace) end it.
func (r *Receiver) Issue(agent string, task a2a.TaskID) (webhook, token string, err error) {
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", "", fmt.Errorf("push: a random token: %w", err)
	}
	token = base64.RawURLEncoding.EncodeToString(raw[:])
	r.mu.Lock()
	defer r.mu.Unlock()
	r.purgeLocked()
	a := r.agents[agent]
	switch {
	case a == nil:
		return "", "", ErrUnknownAgent
	case a.webhook == "":
		return "", "", errors.New("push: " + noWebhook(agent))
	case a.live >= r.o.MaxConfigs:
		return "", "", ErrFull
	}
	t := &ticket{key: sha256.Sum256([]byte(token)), agent: agent, task: task, token: []byte(token)}
	r.tickets[t.key] = t
	a.tasks[task]++
	a.live++
	return a.webhook, token, nil
}

// Registered notes that the agent accepted the config carrying token.
func (r *Receiver) Registered(agent, token string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t, a := r.findLocked(agent, token)
	if t == nil || t.registered || !t.retired.IsZero() {
		return
	}
	t.registered = true
	a.h.Configs++
	a.h.Note = ""
	r.changedLocked(a)
}

// Failed ends the token of a registration the agent refused, and says
// why on the agent's row (why must hold no secret).
func (r *Receiver) Failed(agent, token, why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t, a := r.findLocked(agent, token)
	if t == nil {
		return
	}
	r.dropLocked(t, a)
	a.h.Note = why
	r.changedLocked(a)
}

// Retire notes that the config carrying token was deleted (or its task
// ended): the token is accepted for Grace more, then forgotten.
func (r *Receiver) Retire(agent, token string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t, a := r.findLocked(agent, token)
	if t == nil || !t.retired.IsZero() {
		return
	}
	t.retired = r.o.Now()
	if t.registered {
		a.h.Configs--
	}
	a.live--
	if a.tasks[t.task]--; a.tasks[t.task] <= 0 {
		delete(a.tasks, t.task)
	}
	r.retired = append(r.retired, t)
	r.changedLocked(a)
	r.purgeLocked()
}

// SetOffered says whether push is on for agent (the card offers it and
// the watcher registers configs); note says why not, or "".
func (r *Receiver) SetOffered(agent string, on bool, note string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	a := r.agents[agent]
	if a != nil && a.webhook == "" {
		on, note = false, noWebhook(agent)
	}
	if a == nil || a.h.On == on && (on || a.h.Note == note) {
		return
	}
	a.h.On = on
	if !on {
		a.h.Note = note
	}
	r.changedLocked(a)
}

// Health returns agent's push status now.
func (r *Receiver) Health(agent string) model.PushHealth {
	r.mu.Lock()
	defer r.mu.Unlock()
	if a := r.agents[agent]; a != nil {
		return a.h
	}
	return model.PushHealth{}
}

// Unknown counts the POSTs that named no configured agent.
func (r *Receiver) Unknown() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.unknown
}

// findLocked returns agent's ticket for token (compared in constant
// time), or nil.
func (r *Receiver) findLocked(agent, token string) (*ticket, *agentState) {
	a := r.agents[agent]
	if a == nil || token == "" {
		return nil, a
	}
	t := r.tickets[sha256.Sum256([]byte(token))]
	if t == nil || subtle.ConstantTimeCompare(t.token, []byte(token)) != 1 || t.agent != agent {
		return nil, a
	}
	if !t.retired.IsZero() && r.o.Now().Sub(t.retired) > r.o.Grace {
		return nil, a
	}
	return t, a
}

// dropLocked forgets a live ticket.
func (r *Receiver) dropLocked(t *ticket, a *agentState) {
	delete(r.tickets, t.key)
	if !t.retired.IsZero() {
		return
	}
	if t.registered {
		a.h.Configs--
	}
	a.live--
	if a.tasks[t.task]--; a.tasks[t.task] <= 0 {
		delete(a.tasks, t.task)
	}
}

// purgeLocked forgets the retired tickets whose grace has ended.
func (r *Receiver) purgeLocked() {
	now := r.o.Now()
	n := 0
	for _, t := range r.retired {
		if now.Sub(t.retired) <= r.o.Grace {
			break
		}
		if r.tickets[t.key] == t {
			delete(r.tickets, t.key)
		}
		n++
	}
	r.retired = r.retired[n:]
}

// changedLocked schedules a publish of a's status, at most one per
// Options.Publish.
func (r *Receiver) changedLocked(a *agentState) {
	if a.pending {
		return
	}
	a.pending = true
	time.AfterFunc(r.o.Publish, func() { r.publish(a) })
}

func (r *Receiver) publish(a *agentState) {
	r.mu.Lock()
	a.pending = false
	h := a.h
	r.mu.Unlock()
	r.o.Sink.SetPushHealth(a.name, h)
}

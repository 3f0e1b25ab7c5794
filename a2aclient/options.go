package a2aclient

import (
	"crypto/tls"
	"log/slog"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// Defaults applied to zero fields of AgentOptions and Options.
const (
	DefaultSweepInterval   = 5 * time.Second
	DefaultFullResync      = time.Minute
	DefaultMaxStreams      = 32
	DefaultMaxMessageBytes = 8 << 20
	DefaultCallTimeout     = 30 * time.Second
	DefaultBuffer          = 4096
	DefaultCaptureN        = 50
	// DefaultTerminalPerAgent is how many terminal tasks per agent are
	// kept, the newest; model.DefaultMaxTerminalPerAgent is the same.
	DefaultTerminalPerAgent = 1000
	DefaultMaxOpenTasks     = 10000
	DefaultListConcurrency  = 4
	DefaultMaxSweepBytes    = 128 << 20
	DefaultMaxSweepPages    = 2000
	// DefaultCardPath is where the agent card lives relative to the base URL.
	DefaultCardPath = "/.well-known/agent-card.json"
	// maxBackoff caps the per-agent retry delay.
	maxBackoff = 60 * time.Second
	// maxAwayWait caps the retry delay while the agent cannot be reached
	// (watcher.go, away): it is back within this long of answering again.
	maxAwayWait = 4 * time.Second
)

// AgentOptions configures how one agent is watched. The zero value of every
// duration and limit means "use the default".
type AgentOptions struct {
	Name, URL string
	// CardPath overrides where the card is fetched, relative to URL;
	// "" means /.well-known/agent-card.json.
	CardPath string
	// Binding is "auto" (or ""), "jsonrpc", "rest" or "grpc".
	Binding string
	// Protocol is "auto" (or ""), "1.0" or "0.3".
	Protocol string
	// Tenant, when set, is sent in every request instead of the card's.
	Tenant string
	// Headers are sent only to the origin of URL and to AllowedHosts.
	Headers []Header
	// Auth is the agent's credential besides Headers: a token that is
	// re-read, refreshed or fetched (see AuthOptions).
	Auth AuthOptions
	// AllowedHosts are extra "host:port" values that may receive Headers
	// (for a card whose interface lives on another host), over https, or
	// over http when URL is http too.
	AllowedHosts []string
	// TLS configures the agent's TLS connections (HTTP and gRPC): the
	// roots to trust, a client certificate; nil for the system defaults.
	TLS *tls.Config
	// SweepInterval is the ListTasks (or GetTask poll) period; 0 = 5s.
	SweepInterval time.Duration
	// FullResync is how often a sweep ignores the high-water mark; 0 = 1m.
	FullResync time.Duration
	// Subscribe opens SubscribeToTask streams when the card allows it.
	Subscribe bool
	// MaxStreams caps the open streams of this agent; 0 = 32.
	MaxStreams int
	// HistoryLength is used by Get when the caller passes 0; 0 = server default.
	HistoryLength int
	// Tasks are watched even when the agent cannot list tasks.
	Tasks []a2a.TaskID
	// MaxMessageBytes caps one response body and one SSE event; 0 = 8 MiB.
	MaxMessageBytes int64
	// ChainMetadataKey is the metadata key naming the task this one waits
	// on; such tasks (and referenceTaskIds) are watched on the agents that
	// cannot list tasks.
	ChainMetadataKey string
	// ReadOnly forbids Reply and Cancel on this agent.
	ReadOnly bool
	// CallTimeout bounds every unary call and the wait for response
	// headers; 0 = 30s. Streams have no overall deadline.
	CallTimeout time.Duration

	// What watching this agent may cost, in memory and in requests
	// (sweep_full.go, pager.go, memo.go).

	// TerminalPerAgent is how many terminal tasks are kept, the newest by
	// status timestamp: the first sweep lists terminal states only until
	// it holds them; 0 = 1,000, negative = all. Give the model.Fleet the
	// same number.
	TerminalPerAgent int
	// MaxOpenTasks caps the tasks kept that are not terminal; past it new
	// ones are not reported and the agent's row says "too many open
	// tasks: N kept". 0 = 10,000, negative = no cap.
	MaxOpenTasks int
	// ListConcurrency is how many ListTasks of one sweep (each for one
	// status) may run at once; 0 = 4.
	ListConcurrency int
	// MaxSweepBytes caps the response bytes of one sweep, all its pages
	// together; 0 = 128 MiB. A sweep past it fails on the agent's row.
	MaxSweepBytes int64
	// MaxSweepPages caps the ListTasks pages of one sweep; 0 = 2,000.
	MaxSweepPages int
	// ListAll makes every full sweep one listing of every task, with no
	// status filter, as a2atop did before it listed by state (for
	// comparison; agents whose ListTasks ignores the filter get it
	// without asking).
	ListAll bool
}

// Options configures a Manager.
type Options struct {
	Logger *slog.Logger
	// Buffer is the capacity of the event channel; 0 = 4096.
	Buffer int
	// CaptureN is how many exchanges the raw capture keeps per agent; 0 = 50.
	CaptureN int
	// MaxStreams caps the SubscribeToTask streams of all agents together
	// (stream_budget.go); 0 = 128, negative = no cap but each agent's.
	MaxStreams int
	// SendWait is how long a watcher waits for room in a full event
	// channel before it coalesces to "resweep needed"; 0 = 20ms.
	SendWait time.Duration
}

// withDefaults returns a copy of o with zero fields filled in.
func (o AgentOptions) withDefaults() AgentOptions {
	if o.SweepInterval <= 0 {
		o.SweepInterval = DefaultSweepInterval
	}
	if o.FullResync <= 0 {
		o.FullResync = DefaultFullResync
	}
	if o.MaxStreams <= 0 {
		o.MaxStreams = DefaultMaxStreams
	}
	if o.MaxMessageBytes <= 0 {
		o.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = DefaultCallTimeout
	}
	if o.CardPath == "" {
		o.CardPath = DefaultCardPath
	}
	if o.TerminalPerAgent == 0 {
		o.TerminalPerAgent = DefaultTerminalPerAgent
	}
	if o.MaxOpenTasks == 0 {
		o.MaxOpenTasks = DefaultMaxOpenTasks
	}
	if o.ListConcurrency <= 0 {
		o.ListConcurrency = DefaultListConcurrency
	}
	if o.MaxSweepBytes <= 0 {
		o.MaxSweepBytes = DefaultMaxSweepBytes
	}
	if o.MaxSweepPages <= 0 {
		o.MaxSweepPages = DefaultMaxSweepPages
	}
	return o
}

func (o Options) withDefaults() Options {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Buffer <= 0 {
		o.Buffer = DefaultBuffer
	}
	if o.CaptureN <= 0 {
		o.CaptureN = DefaultCaptureN
	}
	if o.MaxStreams == 0 {
		o.MaxStreams = DefaultMaxStreamsTotal
	}
	if o.SendWait <= 0 {
		o.SendWait = 20 * time.Millisecond
	}
	return o
}

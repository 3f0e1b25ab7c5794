package hub

import (
	"context"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"a2atop/approvals"
	"a2atop/model"
)

// scrapeWait bounds how long a scrape waits for the loop to read the
// fleet; past it the fleet's figures are left out of that scrape.
const scrapeWait = 2 * time.Second

// metrics is what the hub counts for GET /metrics, in the Prometheus
// text format: its own registry (the process's default one is not
// touched, so that two hubs in one process count apart).
type metrics struct {
	reg       *prometheus.Registry
	events    prometheus.Counter
	batches   prometheus.Counter
	decisions *prometheus.CounterVec
	decideDur prometheus.Histogram
	appendDur prometheus.Histogram
	appendErr prometheus.Counter
	follows   *prometheus.CounterVec
}

// newMetrics registers the hub's metrics: counters the hub adds to as it
// works, and gauges read when scraped (the feed's subscribers, the claims,
// the fleet's agents and tasks, the Go runtime and the process).
func newMetrics(h *Hub) *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.events = prometheus.NewCounter(prometheus.CounterOpts{Name: "a2atop_hub_events_applied_total",
		Help: "Watcher events the hub applied to its fleet and put on the feed."})
	m.batches = prometheus.NewCounter(prometheus.CounterOpts{Name: "a2atop_hub_event_batches_total",
		Help: "Batches of watcher events applied (events are gathered for a few milliseconds)."})
	m.decisions = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "a2atop_hub_decisions_total",
		Help: "Decisions asked of the hub, by the result answered (sent, refused, failed, unknown, ...) and HTTP status."},
		[]string{"result", "status"})
	m.decideDur = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "a2atop_hub_decision_seconds",
		Help:    "Time from a decision's request to its answer: the checks, the journal and the send to the agent.",
		Buckets: prometheus.ExponentialBuckets(0.001, 2, 16)})
	m.appendDur = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "a2atop_hub_journal_append_seconds",
		Help:    "Time to append records to the journal durably (its lock, write and fsync).",
		Buckets: prometheus.ExponentialBuckets(0.0001, 2, 16)})
	m.appendErr = prometheus.NewCounter(prometheus.CounterOpts{Name: "a2atop_hub_journal_append_errors_total",
		Help: "Appends to the journal that failed (nothing was sent for them)."})
	m.follows = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "a2atop_hub_journal_follows_total",
		Help: "Times the hub read what other processes appended to the journal, by result (ok, error)."},
		[]string{"result"})
	m.reg.MustRegister(m.events, m.batches, m.decisions, m.decideDur, m.appendDur, m.appendErr, m.follows,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "a2atop_hub_feed_subscribers",
			Help: "Feed connections open (a dashboard holds one)."},
			func() float64 { return float64(h.Stats().Subscribers) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "a2atop_hub_feed_stalled_subscribers",
			Help: "Feed connections with a write under way (a reader that takes no bytes keeps one)."},
			func() float64 { return float64(h.Stats().Waiting) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "a2atop_hub_claims",
			Help: "Claims held on prompts, every operator's."},
			func() float64 { return float64(h.claimCount()) }),
		&fleetCollector{h: h},
		&callCollector{h: h},
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if h.team != nil {
		l := h.team.l
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "a2atop_hub_leases_held",
			Help: "Watch leases this hub holds: the agents it watches for the team."},
			func() float64 { return float64(l.n.Load()) }))
	}
	return m
}

// CallCounter is what Watchers may count (*a2aclient.Manager does): the
// requests made to an agent, by operation, since they started.
type CallCounter interface {
	Calls(agent string) map[string]uint64
}

// callCollector reads, when scraped, each agent's requests by operation
// and, in a team, whether this hub watches it.
type callCollector struct{ h *Hub }

var (
	agentCallsDesc = prometheus.NewDesc("a2atop_hub_agent_calls_total",
		"Requests this hub made to the agent, by operation (ListTasks, GetTask, SubscribeToTask, SendMessage, ...).", []string{"agent", "op"}, nil)
	agentWatchedDesc = prometheus.NewDesc("a2atop_hub_agent_watched",
		"1 while this hub holds the agent's watch lease (watches it for the team), else 0.", []string{"agent"}, nil)
)

func (c *callCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- agentCallsDesc
	ch <- agentWatchedDesc
}

func (c *callCollector) Collect(ch chan<- prometheus.Metric) {
	cc, _ := c.h.o.Watchers.(CallCounter)
	for _, a := range c.h.o.Agents {
		if cc != nil {
			for op, n := range cc.Calls(a.Name) {
				ch <- prometheus.MustNewConstMetric(agentCallsDesc, prometheus.CounterValue, float64(n), a.Name, op)
			}
		}
		if c.h.team != nil {
			w := 0.0
			if c.h.team.l.holds(a.Name) {
				w = 1
			}
			ch <- prometheus.MustNewConstMetric(agentWatchedDesc, prometheus.GaugeValue, w, a.Name)
		}
	}
}

// decided counts a decision the hub answered.
func (m *metrics) decided(result approvals.Result, status int, took time.Duration) {
	r := string(result)
	if r == "" {
		r = "none"
	}
	m.decisions.WithLabelValues(r, http.StatusText(status)).Inc()
	m.decideDur.Observe(took.Seconds())
}

// appended is the approvals Service's OnAppend.
func (m *metrics) appended(_ int, took time.Duration, err error) {
	if err != nil {
		m.appendErr.Inc()
		return
	}
	m.appendDur.Observe(took.Seconds())
}

// followed counts one follow of the journal.
func (m *metrics) followed(err error) {
	if err != nil {
		m.follows.WithLabelValues("error").Inc()
		return
	}
	m.follows.WithLabelValues("ok").Inc()
}

// claimCount is how many claims the feed holds.
func (h *Hub) claimCount() int {
	h.feed.mu.Lock()
	defer h.feed.mu.Unlock()
	return len(h.feed.claims)
}

// serveMetrics is GET /metrics. It takes an operator's token like every
// route (Prometheus sends one with `authorization: credentials_file`):
// the agents' names are the team's.
func (h *Hub) serveMetrics(w http.ResponseWriter, r *http.Request, _ *Operator) {
	promhttp.HandlerFor(h.metrics.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}).ServeHTTP(w, r)
}

// fleetCollector reads the fleet on the loop when scraped: each agent's
// health and its tasks by class.
type fleetCollector struct{ h *Hub }

var (
	agentUpDesc = prometheus.NewDesc("a2atop_hub_agent_up",
		"1 while the agent answers (streaming, sweeping or polling), else 0.", []string{"agent"}, nil)
	agentHealthDesc = prometheus.NewDesc("a2atop_hub_agent_health",
		"1 for the agent's connection state now (connecting, streaming, sweeping, polling, backing off, unreachable, unauthorized).", []string{"agent", "state"}, nil)
	agentTasksDesc = prometheus.NewDesc("a2atop_hub_agent_tasks",
		"Tasks the hub's fleet holds for the agent, by pane (active, interrupted, terminal).", []string{"agent", "class"}, nil)
	agentViolationsDesc = prometheus.NewDesc("a2atop_hub_agent_protocol_violations",
		"Protocol violations seen on the agent's tasks since the hub started.", []string{"agent"}, nil)
)

func (c *fleetCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- agentUpDesc
	ch <- agentHealthDesc
	ch <- agentTasksDesc
	ch <- agentViolationsDesc
}

// Collect reads the fleet through the loop (which owns it); a loop that
// does not answer within scrapeWait leaves these figures out rather than
// hold the scrape.
func (c *fleetCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeWait)
	defer cancel()
	var ms []prometheus.Metric
	err := c.h.Inspect(ctx, func(f *model.Fleet) {
		for _, a := range f.Agents() {
			up := 0.0
			if a.Health.State.Up() {
				up = 1
			}
			ms = append(ms, prometheus.MustNewConstMetric(agentUpDesc, prometheus.GaugeValue, up, a.Name),
				prometheus.MustNewConstMetric(agentHealthDesc, prometheus.GaugeValue, 1, a.Name, a.Health.State.String()),
				prometheus.MustNewConstMetric(agentViolationsDesc, prometheus.CounterValue, float64(a.Violations), a.Name))
			for _, cl := range []model.Class{model.ClassActive, model.ClassInterrupted, model.ClassTerminal} {
				ms = append(ms, prometheus.MustNewConstMetric(agentTasksDesc, prometheus.GaugeValue, float64(a.Counts[cl]), a.Name, cl.String()))
			}
		}
	})
	if err != nil {
		return
	}
	for _, m := range ms {
		ch <- m
	}
}

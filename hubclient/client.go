package hubclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"a2atop/approvals"
	"a2atop/hub"
	"a2atop/model"
)

// EnvToken is the environment variable a dashboard reads its operator
// token from (else the config's hub_token_file).
const EnvToken = "A2ATOP_HUB_TOKEN"

// Options configure a Client. URL and Token are required.
type Options struct {
	// URL is the hub's base URL: "https://hub.example.com:7717".
	URL string
	// Others are more hubs of the same team, sharing its record (one
	// journal file, or one team store), by base URL: when the hub in use
	// cannot be reached or drops the feed, the client connects to the
	// next one at once, in turn, and waits (backing off) only once every
	// hub has failed. The token goes to these origins alone.
	Others []string
	// Token is the operator's bearer token. It is sent to the hub's
	// origin only, in the Authorization header, and never appears in an
	// error or a log.
	Token string
	// Logger receives what the client did; nil discards.
	Logger *slog.Logger
	// Transport is the HTTP transport; nil is a clone of
	// http.DefaultTransport (the system's roots, $SSL_CERT_FILE).
	Transport http.RoundTripper
	// MinBackoff and MaxBackoff bound the waits between reconnects.
	// 0 = 500ms and 2s (maxDownWait).
	MinBackoff, MaxBackoff time.Duration
	// Buffer is the size of the Events channel. 0 = 4096.
	Buffer int
}

// Client is a dashboard's connection to a team's hub: the feed (read
// with r3labs/sse/v2's client, reconnecting with backoff and resuming
// with Last-Event-ID), turned into the model.Events a dashboard applies
// with Fleet.Apply and the hub's journal lines its approvals Service
// follows; and the hub's API: decisions (it is an approvals.Hub), the
// dashboard's Backend (Get, Cancel, Capture), claims. Build it with New,
// call Me, Attach a Service, then Run. All methods are safe for
// concurrent use.
type Client struct {
	o      Options
	hubs   []*url.URL              // URL then Others
	cur    atomic.Pointer[url.URL] // the hub in use: the feed's and the requests'
	turnMu sync.Mutex
	turn   int          // index of cur in hubs, under turnMu
	http   *http.Client // the API's requests; each has its own timeout
	feed   *http.Client // the feed: no timeout, a watchdog instead
	log    *slog.Logger
	events chan model.Event
	synced chan struct{}

	mu        sync.Mutex
	me        *hub.Me
	svc       *approvals.Service
	connected bool
	lastErr   string
	epoch     string
	seq       uint64        // the last feed position applied, in epoch
	lastRaw   string        // its id as the hub sent it (a team's hub adds where it stands in the team's stream)
	moved     chan struct{} // closed when the position moves
	changed   chan struct{} // closed at each change a dashboard reads (Changed); nil once Run returned
	health    map[string]model.HealthUpdate
	agents    []string // every agent heard of, in order
	claims    map[claimKey]hub.Claim
	held      map[claimKey]bool // the claims this client made and has not released
	claimsVer uint64
	diverged  error       // the hub's journal is not the one followed
	record    *hub.Record // the hub cannot reach the team's record: since when, why; nil while it can (record.go)
	syncOnce  sync.Once
	picture   time.Time // when the feed last delivered something
}

type claimKey struct{ agent, task, operator string }

// maxDownWait is the longest wait between two attempts to reach a hub
// that is down, by default: a dashboard is back within it of the hub's
// return, however long the hub was away. An attempt on a hub that is
// down costs it nothing (the connection is refused), so a team's
// dashboards may try that often; the jitter spreads them out.
const maxDownWait = 2 * time.Second

// New checks the options and builds the client; it does not connect.
func New(o Options) (*Client, error) {
	if o.Token == "" {
		return nil, fmt.Errorf("no operator token for the hub: set $%s or hub_token_file in the config", EnvToken)
	}
	var hubs []*url.URL
	for _, raw := range append([]string{o.URL}, o.Others...) {
		u, err := hubURL(raw)
		if err != nil {
			return nil, err
		}
		hubs = append(hubs, u)
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Transport == nil {
		o.Transport = http.DefaultTransport.(*http.Transport).Clone()
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = 500 * time.Millisecond
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = maxDownWait
	}
	if o.Buffer <= 0 {
		o.Buffer = 4096
	}
	c := &Client{o: o, hubs: hubs, log: o.Logger, events: make(chan model.Event, o.Buffer), synced: make(chan struct{}),
		moved: make(chan struct{}), changed: make(chan struct{}), health: map[string]model.HealthUpdate{}, claims: map[claimKey]hub.Claim{}, held: map[claimKey]bool{}}
	c.cur.Store(hubs[0])
	c.http = &http.Client{Transport: o.Transport, CheckRedirect: noRedirects}
	c.feed = &http.Client{Transport: o.Transport, CheckRedirect: noRedirects}
	for _, u := range hubs {
		if u.Scheme == "http" && !loopback(u.Hostname()) {
			c.log.Warn("the hub is reached over plain http on another host: the operator token crosses the network in clear; serve the hub with TLS", "hub", u.String())
		}
	}
	return c, nil
}

// hubURL parses a hub's base URL, refusing one with a user, a password
// or a query (where a token does not belong).
func hubURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimRight(raw, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" {
		return nil, fmt.Errorf("%q is not a hub URL: give its base URL, like https://hub.example.com:7717 (the token goes in $%s, never in the URL)", shownURL(raw), EnvToken)
	}
	return u, nil
}

// shownURL is raw for a message: without a user name or password, and
// without its query, where secrets would be.
func shownURL(raw string) string {
	if i := strings.IndexAny(raw, "?#"); i >= 0 {
		raw = raw[:i] + "?…"
	}
	if scheme, rest, ok := strings.Cut(raw, "://"); ok {
		if at := strings.LastIndexByte(rest, '@'); at >= 0 {
			return scheme + "://…" + rest[at:]
		}
	}
	return raw
}

// noRedirects keeps the token on the hub's origin: a redirect is an
// error, never followed with the Authorization header.
func noRedirects(*http.Request, []*http.Request) error {
	return errors.New("the hub answered with a redirect; a2atop does not follow it (the token stays with the hub's URL)")
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// URL is the base URL of the hub in use.
func (c *Client) URL() string { return c.cur.Load().String() }

// Hubs is how many hubs the client may use (Options.URL and Others).
func (c *Client) Hubs() int { return len(c.hubs) }

// nextHub moves to the next hub, in turn, and says so in the log. Me
// calls it before the feed runs, Run between two connections of the
// feed: writes are refused meanwhile (the feed is down), so no decision
// is under way to the hub left.
func (c *Client) nextHub(why error) {
	c.turnMu.Lock()
	defer c.turnMu.Unlock()
	from := c.URL()
	c.turn = (c.turn + 1) % len(c.hubs)
	c.cur.Store(c.hubs[c.turn])
	c.log.Warn("trying another hub of the team", "from", from, "to", c.URL(), "err", why.Error())
}

// Events are the feed's events as model.Events, for Fleet.Apply (the
// dashboard's ui.Options.Events): the snapshot's, then every event;
// when the hub is unreachable, a health event per agent that marks it
// stale until the feed is back.
func (c *Client) Events() <-chan model.Event { return c.events }

// Synced is closed once the feed has delivered a whole snapshot (or
// resumed): from then on the events describe the hub's fleet.
func (c *Client) Synced() <-chan struct{} { return c.synced }

// Connected reports whether the feed is connected, and when it is not,
// why (the last error, in words).
func (c *Client) Connected() (bool, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.connected, c.lastErr
}

// Me asks the hub who the token is, what the operator may do, and what
// decisions are prepared with. A refused token is an error that says so.
// A hub that cannot be reached is passed over for the next one
// (Options.Others), each tried once; the client stays on the one that
// answered.
func (c *Client) Me(ctx context.Context) (hub.Me, error) {
	var err error
	for range c.hubs {
		var me hub.Me
		if me, err = c.askMe(ctx); err == nil {
			return me, nil
		}
		var reach *UnreachableError
		if !errors.As(err, &reach) || len(c.hubs) == 1 {
			break
		}
		c.nextHub(err)
	}
	return hub.Me{}, err
}

// askMe is Me of the hub in use.
func (c *Client) askMe(ctx context.Context) (hub.Me, error) {
	var me hub.Me
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if _, err := c.do(ctx, http.MethodGet, "/v1/me", nil, &me); err != nil {
		return hub.Me{}, err
	}
	c.mu.Lock()
	c.me = &me
	for _, a := range me.Agents {
		c.heardLocked(a.Name)
	}
	c.changedLocked()
	c.mu.Unlock()
	return me, nil
}

// Attach hands the client the approvals Service that follows the hub's
// journal (opened with Options.Hub = this client; see OpenService).
// Call it before Run.
func (c *Client) Attach(svc *approvals.Service) {
	c.mu.Lock()
	c.svc = svc
	c.mu.Unlock()
}

// OpenService opens the approvals Service of a dashboard attached to
// the hub, from what Me said (the approver, the agents, the templates),
// and attaches it. o may set Logger, ReadOnly, QuietPeriod, Now.
func (c *Client) OpenService(o approvals.Options) (*approvals.Service, error) {
	c.mu.Lock()
	me := c.me
	c.mu.Unlock()
	if me == nil {
		return nil, errors.New("hubclient: call Me before OpenService")
	}
	o.Hub, o.Approver, o.Templates = c, me.Approver, me.Templates
	o.Policies, o.Groups = me.Policies, map[string][]string{me.Approver: me.Groups}
	o.HubRecord = me.Record
	for _, a := range me.Agents {
		o.Agents = append(o.Agents, approvals.Agent{Name: a.Name, URL: a.URL, Tenant: a.Tenant})
	}
	svc, err := approvals.Open(o)
	if err != nil {
		return nil, err
	}
	c.Attach(svc)
	return svc, nil
}

// statusError is a refusal from the hub: its status and its words.
type statusError struct {
	status int
	msg    string
}

func (e *statusError) Error() string {
	return fmt.Sprintf("hub: %d %s: %s", e.status, http.StatusText(e.status), e.msg)
}

// Refused reports whether err is the hub's refusal, and its HTTP status
// (401 for a token it does not know, 403 for a role the operator lacks).
func Refused(err error) (int, bool) {
	var se *statusError
	if errors.As(err, &se) {
		return se.status, true
	}
	return 0, false
}

// refusal reads a hub refusal's words from its body.
func refusal(resp *http.Response) error {
	var body hub.ErrorBody
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if json.Unmarshal(b, &body) != nil || body.Error == "" {
		body.Error = strings.TrimSpace(string(b))
		if body.Error == "" || len(body.Error) > 500 {
			body.Error = "no reason given (is this an a2atop hub?)"
		}
	}
	return &statusError{status: resp.StatusCode, msg: body.Error}
}

// do makes one request of the API: body (if any) as JSON, the answer
// into out when the status is 2xx. A refusal is a *statusError; out is
// also decoded from a refusal's body when it parses (an Outcome).
func (c *Client) do(ctx context.Context, method, path string, body, out any) (int, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.URL()+path, rd)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+c.o.Token)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, c.netError(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 == 2 {
		if out == nil || resp.StatusCode == http.StatusNoContent {
			return resp.StatusCode, nil
		}
		if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(out); err != nil {
			return resp.StatusCode, fmt.Errorf("hub %s: %s %s: the answer is not what an a2atop hub sends: %w", c.URL(), method, path, err)
		}
		return resp.StatusCode, nil
	}
	// An Outcome or a TaskAnswer is the answer of a refusal too.
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	switch o := out.(type) {
	case *hub.Outcome:
		if json.Unmarshal(b, o) == nil && o.Result != "" {
			return resp.StatusCode, nil
		}
	case *hub.TaskAnswer: // an agent's error, passed on (502)
		if resp.StatusCode == http.StatusBadGateway && json.Unmarshal(b, o) == nil && o.Error != "" {
			return resp.StatusCode, nil
		}
	}
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return resp.StatusCode, refusal(resp)
}

// netError is a transport error in words: the hub's URL, what failed.
// (Go's errors name the URL and the cause; the token is in a header and
// never in them.)
func (c *Client) netError(err error) error {
	return &UnreachableError{hub: c.URL(), err: err}
}

// UnreachableError is a request that did not reach the hub, or got no
// answer from it (refused, no route, a timeout): the hub may be down or
// not started yet, and trying again later may work.
type UnreachableError struct {
	hub string
	err error
}

func (e *UnreachableError) Error() string {
	var ue *url.Error
	cause := e.err
	if errors.As(e.err, &ue) {
		cause = ue.Err
	}
	return fmt.Sprintf("the hub at %s cannot be reached: %v", e.hub, cause)
}

func (e *UnreachableError) Unwrap() error { return e.err }

// notSent reports whether err ended a request before any of it reached
// the hub: the connection was never made.
func notSent(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var dns *net.DNSError
	return errors.As(err, &dns)
}

// heardLocked adds an agent name to those the client knows. Callers hold c.mu.
func (c *Client) heardLocked(name string) {
	for _, a := range c.agents {
		if a == name {
			return
		}
	}
	c.agents = append(c.agents, name)
}

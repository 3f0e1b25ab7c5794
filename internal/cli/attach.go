package cli

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/approvals"
	"a2atop/hub"
	"a2atop/hubclient"
	"a2atop/internal/config"
	"a2atop/internal/sanitize"
	"a2atop/model"
	"a2atop/ui"
	"a2atop/ui/inbox"
)

// hubFlag defines --hub URL: attach to a team's hub instead of watching
// the agents.
func (o *options) hubFlag() {
	o.fs.StringVar(&o.hub, "hub", "", "attach to the team's hub at `URL` (a2atop serve) instead of watching agents; several hubs of one team, comma-separated, are tried in turn when one cannot be reached; the operator token is $A2ATOP_HUB_TOKEN or hub_token_file")
}

// errHubURLs refuses agent URLs next to --hub: the hub's agents are the
// hub's config.
var errHubURLs = errors.New("with --hub the agents are the hub's; give no agent URLs")

// attach connects the session to the hub --hub names, with the
// operator's token ($A2ATOP_HUB_TOKEN or hub_token_file), and asks the
// hub who the token is. A nil client comes with the exit status: a
// missing or refused token and a bad URL are usage errors, an
// unreachable hub a failure.
func (s *session) attach(ctx context.Context) (*hubclient.Client, hub.Me, int) {
	tok, err := s.cfg.HubToken()
	if err != nil {
		return nil, hub.Me{}, s.failf(exitUsage, "%v", err)
	}
	return s.attachWith(ctx, tok)
}

// attachWith is attach with the token given.
func (s *session) attachWith(ctx context.Context, tok string) (*hubclient.Client, hub.Me, int) {
	cl, me, err := s.dial(ctx, tok)
	return s.attached(cl, me, err)
}

// errBadHubURL is a --hub that is no hub URL.
type errBadHubURL struct{ err error }

func (e errBadHubURL) Error() string { return "--hub: " + e.err.Error() }

// dial builds the client of the hub --hub names and asks it who the
// token is.
func (s *session) dial(ctx context.Context, tok string) (*hubclient.Client, hub.Me, error) {
	urls := strings.Split(s.hub, ",")
	for i := range urls {
		urls[i] = strings.TrimSpace(urls[i])
	}
	cl, err := hubclient.New(hubclient.Options{URL: urls[0], Others: urls[1:], Token: tok, Logger: s.log})
	if err != nil {
		return nil, hub.Me{}, errBadHubURL{err}
	}
	me, err := cl.Me(ctx)
	return cl, me, err
}

// attached is the end of an attach: the client, or nil and the exit
// status of err (a bad URL, a refused token: usage; else a failure).
func (s *session) attached(cl *hubclient.Client, me hub.Me, err error) (*hubclient.Client, hub.Me, int) {
	if err != nil {
		code := exitFailed
		var bad errBadHubURL
		if status, ok := hubclient.Refused(err); errors.As(err, &bad) || ok && (status == http.StatusUnauthorized || status == http.StatusForbidden) {
			code = exitUsage
		}
		return nil, hub.Me{}, s.failf(code, "%v", err)
	}
	s.log.Info("attached to the hub", "hub", cl.URL(), "operator", me.Operator, logKeyAgents, len(me.Agents))
	return cl, me, exitOK
}

// writes reports whether the operator may write anything anywhere
// (answer, approve, cancel): a dashboard for one who may only watch is
// read-only.
func writes(me hub.Me) bool {
	for _, rs := range me.Roles {
		for _, r := range rs {
			if r != hub.RoleWatch {
				return true
			}
		}
	}
	return false
}

// attachDashboard implements `a2atop --hub URL [--config FILE]
// [--read-only]`: the dashboard on the hub's fleet.
func attachDashboard(ctx context.Context, o *options) int {
	cfg, code := o.load(nil)
	if cfg == nil {
		return code
	}
	cfg.ReadOnly = cfg.ReadOnly || o.readOnly
	s := o.open(cfg)
	defer s.Close()
	tok, err := s.cfg.HubToken()
	if err != nil {
		return s.failf(exitUsage, "%v", err)
	}
	cl, me, err := s.dial(ctx, tok)
	switch {
	case err != nil && ctx.Err() != nil: // a signal while asking
		return exitOK
	case err == nil:
		if _, _, code := s.attached(cl, me, nil); code != exitOK {
			return code
		}
		return s.dashboardOn(ctx, cl, me)
	case !hubUnreachable(err):
		_, _, code := s.attached(cl, me, err)
		return code
	}
	return s.waitForHub(ctx, tok, err)
}

// hubUnreachable reports whether err is a hub that could not be reached
// (to wait for), not one that answered with a refusal.
func hubUnreachable(err error) bool {
	var reach *hubclient.UnreachableError
	return errors.As(err, &reach)
}

// dashboardOn runs the dashboard attached to the hub cl reaches until
// the user quits or ctx ends.
func (s *session) dashboardOn(ctx context.Context, cl *hubclient.Client, me hub.Me) int {
	d, err := s.openHubDashboard(ctx, cl, me)
	if err != nil {
		return s.failf(exitUsage, "config: %v", err)
	}
	return d.close(s.runUI(ctx, d.m))
}

// hubDash is a dashboard on a hub, built and following the hub's feed,
// until close.
type hubDash struct {
	s    *session
	m    *ui.Model
	svc  *approvals.Service
	cl   *hubclient.Client
	stop context.CancelFunc
	ran  chan struct{}
}

// openHubDashboard builds the dashboard of the operator me on the hub cl
// reaches and starts following the hub's feed.
func (s *session) openHubDashboard(ctx context.Context, cl *hubclient.Client, me hub.Me) (*hubDash, error) {
	m, svc, err := s.hubDashboard(cl, me)
	if err != nil {
		return nil, err
	}
	cctx, stop := context.WithCancel(ctx)
	d := &hubDash{s: s, m: m, svc: svc, cl: cl, stop: stop, ran: make(chan struct{})}
	go func() { cl.Run(cctx); close(d.ran) }()
	return d, nil
}

// close ends the dashboard whose program ended with err: its claims
// released, the feed stopped, the journal closed; the exit status.
func (d *hubDash) close(err error) int {
	d.s.releaseClaims(d.cl)
	d.stop()
	<-d.ran
	d.svc.Close()
	return d.s.dashboardStatus(err)
}

// claimsRelease bounds the releases of a dashboard's claims as it exits.
const claimsRelease = time.Second

// releaseClaims releases the claims the dashboard still holds as it
// exits (a dialog was open): the team sees at once that nobody answers.
// One second at most; past it the hub drops them when they expire.
func (s *session) releaseClaims(cl *hubclient.Client) {
	ctx, cancel := context.WithTimeout(context.Background(), claimsRelease)
	defer cancel()
	if err := cl.ReleaseHeld(ctx); err != nil {
		s.log.Info("claims not released as the dashboard exits (the hub drops them when they expire)", logKeyErr, err)
	}
}

// hubDashboard builds the dashboard of an operator attached to a hub:
// the fleet built from the hub's feed (the client's Events, applied as
// a local dashboard applies its watchers'), the backend and the
// decisions through the hub, the journal the hub's.
func (s *session) hubDashboard(cl *hubclient.Client, me hub.Me) (*ui.Model, *approvals.Service, error) {
	look, err := dashboardLook(s.cfg)
	if err != nil {
		return nil, nil, err
	}
	hv := hubView{cfg: s.cfg, look: look, out: s.st.Out, export: true}
	if s.cfg.JournalPath != "" { // replies kept, not sent, outlive the dashboard here too
		hv.drafts = s.cfg.JournalPath + ".drafts"
	}
	return s.hubDashboardFor(cl, me, hv)
}

// hubView is how a dashboard attached to a hub looks and where it
// draws: the config it reads its settings from and its look, the
// terminal, where drafts are kept ("" in memory), whether :export
// writes files, the screen it opens on and the footer's words on who
// is at the keys (an SSH session's).
type hubView struct {
	cfg        *config.Config
	look       *look
	out        io.Writer
	drafts     string
	export     bool
	start, via string
}

// hubDashboardFor is hubDashboard as hv says.
func (s *session) hubDashboardFor(cl *hubclient.Client, me hub.Me, hv hubView) (*ui.Model, *approvals.Service, error) {
	cfg := hv.cfg
	readOnly := cfg.ReadOnly || !writes(me)
	svc, err := cl.OpenService(approvals.Options{Logger: s.log, ReadOnly: readOnly, DraftsPath: hv.drafts})
	if err != nil {
		return nil, nil, err
	}
	fleet := model.NewFleet(hubFleetOptions(cfg, me))
	for _, a := range me.Agents {
		fleet.AddAgent(a.Name, a.URL)
	}
	views := inbox.Options{Sort: model.SortAge, KeyMap: hv.look.inboxKeys}
	o := hv.look.options(cfg, svc, ui.Options{
		Fleet:     fleet,
		Events:    cl.Events(),
		Backend:   cl,
		ReadOnly:  readOnly,
		Bell:      cfg.Bell,
		Logger:    s.log,
		Inbox:     inbox.InboxFactory(svc, views),
		Journal:   inbox.JournalFactory(svc, views),
		Output:    hv.out,
		Team:      cl,
		Decisions: svc,
		Start:     hv.start,
		Via:       hv.via,
	})
	if !hv.export { // an SSH session's :export would write on the hub's disk
		o.Export = nil
	}
	return ui.New(o), svc, nil
}

// watchHub implements `a2atop watch --jsonl --hub URL`: the hub's feed as
// watch prints its own events, the snapshot's first.
func watchHub(ctx context.Context, o *options) int {
	cfg, code := o.load(nil)
	if cfg == nil {
		return code
	}
	s := o.open(cfg)
	defer s.Close()
	cl, _, code := s.attach(ctx)
	if cl == nil {
		return code
	}
	cctx, stop := context.WithCancel(ctx)
	defer stop()
	go cl.Run(cctx)
	for {
		select {
		case <-ctx.Done():
			return exitOK
		case ev := <-cl.Events():
			if err := writeJSON(s.st.Out, newJSONEvent(ev)); err != nil {
				s.log.Error("watch output failed", logKeyErr, err)
				return s.failf(exitFailed, "%v", err)
			}
		}
	}
}

// hubFleet is a fleet built from a hub's feed for a command without a
// screen: a goroutine applies the events; read it under its lock.
type hubFleet struct {
	mu    sync.Mutex
	fleet *model.Fleet
}

func (hf *hubFleet) apply(ev model.Event) {
	hf.mu.Lock()
	hf.fleet.Apply([]model.Event{ev})
	hf.mu.Unlock()
}

// syncedFleet applies cl's events until the first snapshot has ended (or the
// resumed feed is up), and what it sent before that, which waits in the
// channel; then follow applies the rest. false when wait passed first.
func syncedFleet(ctx context.Context, cfg *config.Config, cl *hubclient.Client, me hub.Me, wait time.Duration) (*hubFleet, bool) {
	hf := newHubFleet(cfg, me)
	deadline := time.After(wait)
	for synced := false; !synced; {
		select {
		case ev := <-cl.Events():
			hf.apply(ev)
		case <-cl.Synced():
			synced = true
		case <-deadline:
			return hf, false
		case <-ctx.Done():
			return hf, false
		}
	}
	for more := true; more; { // emitted before Synced closed: in the channel now
		select {
		case ev := <-cl.Events():
			hf.apply(ev)
		default:
			more = false
		}
	}
	go hf.follow(ctx, cl)
	return hf, true
}

// hubFleetOptions bound a fleet built from a hub's feed: what it holds
// in memory as the config says, the terminal tasks it keeps and the
// chain keys as the hub does.
func hubFleetOptions(cfg *config.Config, me hub.Me) model.Options {
	o := cfg.FleetOptions()
	o.ChainKeys = me.ChainKeys
	if me.TerminalPerAgent != 0 {
		o.MaxTerminalPerAgent = me.TerminalPerAgent
	}
	return o
}

// newHubFleet is an empty fleet of the hub's agents.
func newHubFleet(cfg *config.Config, me hub.Me) *hubFleet {
	hf := &hubFleet{fleet: model.NewFleet(hubFleetOptions(cfg, me))}
	for _, a := range me.Agents {
		hf.fleet.AddAgent(a.Name, a.URL)
	}
	return hf
}

// follow applies cl's events until ctx ends.
func (hf *hubFleet) follow(ctx context.Context, cl *hubclient.Client) {
	for {
		select {
		case <-ctx.Done():
			return
		case ev := <-cl.Events():
			hf.apply(ev)
		}
	}
}

// replyViaHub is `a2atop reply --hub URL AGENT TASK …`: the decision
// prepared from the hub's fleet and journal as the inbox would, and
// sent through the hub, which checks it and sends it once.
func replyViaHub(ctx context.Context, o *options, agentArg, taskArg string, kind approvals.Kind, f *replyFlags) int {
	cfg, code := o.load(nil)
	if cfg == nil {
		return code
	}
	if cfg.ReadOnly {
		return o.failf(exitUsage, "read-only (--read-only, or read_only = true in the config): reply sends nothing")
	}
	s := o.open(cfg)
	defer s.Close()
	cl, me, code := s.attach(ctx)
	if cl == nil {
		return code
	}
	names := make([]string, len(me.Agents))
	for j, a := range me.Agents {
		names[j] = a.Name
	}
	if found := model.ResolveName(names, agentArg); len(found) == 1 {
		agentArg = found[0] // a start of its name, as the dashboard reads it
	}
	i := slices.IndexFunc(me.Agents, func(a hub.Agent) bool {
		return a.Name == agentArg || strings.TrimRight(a.URL, "/") == strings.TrimRight(agentArg, "/")
	})
	if i < 0 {
		return s.failf(exitUsage, "the hub at %s watches no agent %q (it watches: %s)", cl.URL(), agentArg, strings.Join(names, ", "))
	}
	agent := me.Agents[i].Name
	svc, err := cl.OpenService(approvals.Options{Logger: s.log, SendTimeout: s.timeout})
	if err != nil {
		return s.failf(exitFailed, "%v", err)
	}
	defer svc.Close()
	cctx, stop := context.WithCancel(ctx)
	defer stop()
	go cl.Run(cctx)
	hf, ok := syncedFleet(cctx, s.cfg, cl, me, s.timeout)
	if !ok {
		_, why := cl.Connected()
		return s.failf(exitFailed, "the hub's feed did not arrive within %s: %s", s.timeout, why)
	}
	d, code := hf.prepare(s, svc, agent, taskArg, approvals.Input{Kind: kind, Text: f.text, JSON: f.data, Reason: f.reason, Again: f.again})
	if d == nil {
		return code
	}
	out := svc.Send(ctx, d)
	return s.reportReply(d, out, "the hub's journal at "+cl.URL())
}

// prepare finds the task arg names on agent in the hub's fleet (its id,
// or as model.ResolveID reads it) and prepares the decision.
func (hf *hubFleet) prepare(s *session, svc *approvals.Service, agent, arg string, in approvals.Input) (*approvals.Decision, int) {
	hf.mu.Lock()
	defer hf.mu.Unlock()
	k := model.TaskKey{Agent: agent, ID: a2a.TaskID(arg)}
	if hf.fleet.Task(k) == nil {
		var ids []a2a.TaskID
		for _, c := range []model.Class{model.ClassUnknown, model.ClassActive, model.ClassInterrupted, model.ClassTerminal} {
			for _, t := range hf.fleet.Page(c, model.Query{}, 0, hf.fleet.Len()) {
				if t.Key.Agent == agent {
					ids = append(ids, t.Key.ID)
				}
			}
		}
		matches := model.ResolveID(ids, arg)
		switch len(matches) {
		case 0:
			return nil, s.failf(exitFailed, "%s · %s: task not found: none of the %d tasks the hub holds of %s has this id, or an id or short id that starts with it", agent, arg, len(ids), agent)
		case 1:
			k.ID = matches[0]
		default:
			return nil, s.failf(exitUsage, "%s · %s: %s", agent, arg, ambiguous(arg, matches))
		}
	}
	it, _ := svc.ItemOf(hf.fleet, k)
	d, err := svc.Prepare(it, in)
	if err != nil {
		code := exitFailed
		if errors.Is(err, approvals.ErrInvalidJSON) || errors.Is(err, approvals.ErrEmptyReply) || errors.Is(err, approvals.ErrReasonRequired) ||
			errors.Is(err, approvals.ErrApprovalReason) {
			code = exitUsage
		}
		return nil, s.failf(code, "%s · %s: %v", agent, sanitize.Line(string(k.ID), 200), err)
	}
	return d, exitOK
}

package cli

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/approvals"
	"a2atop/approvals/jetstore"
	"a2atop/demo"
	"a2atop/internal/agenttest"
	"a2atop/internal/natsembed"
	"a2atop/internal/testcert"
	"a2atop/model"
)

// clusterHub is one `a2atop serve --cluster-listen … --peers …` run as
// a process of its own (TestServeChild: the test binary, built once per
// test run), which the test can kill with SIGKILL and start again on
// the same state.
type clusterHub struct {
	args  []string
	url   string // http://its --listen
	route string // its --cluster-listen
	dir   string // its state: the config, the log, cluster/
	files clusterFiles

	cmd    *exec.Cmd
	stderr *syncBuffer
	up     chan error // nil once it said where it listens, or why it never will
}

// start starts the process; wait waits for it to say where it listens
// (a hub of the embedded cluster does once its peers have formed the
// JetStream cluster with it).
func (h *clusterHub) start(t *testing.T) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestServeChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), envServeChild+"="+strings.Join(append([]string{"serve"}, h.args...), "\x1f"))
	h.stderr = &syncBuffer{}
	cmd.Stderr = h.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h.cmd, h.up = cmd, make(chan error, 1)
	up := h.up
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if hubLine.MatchString(sc.Text()) {
				up <- nil
				_, _ = io.Copy(io.Discard, out)
				return
			}
		}
		up <- errors.New("the hub process ended before it said where it listens")
	}()
}

func (h *clusterHub) wait(t *testing.T) {
	t.Helper()
	select {
	case err := <-h.up:
		if err != nil {
			t.Fatalf("hub %s: %v\n%s", h.url, err, h.logs())
		}
	case <-time.After(2 * time.Minute):
		t.Fatalf("hub %s never said where it listens\n%s", h.url, h.logs())
	}
}

// kill ends the process with SIGKILL: no shutdown, no last write.
func (h *clusterHub) kill() {
	if h.cmd == nil {
		return
	}
	_ = h.cmd.Process.Kill()
	_ = h.cmd.Wait()
	h.cmd = nil
}

// stop ends the process as Ctrl+C does, and waits for it.
func (h *clusterHub) stop(t *testing.T) {
	t.Helper()
	if h.cmd == nil {
		return
	}
	_ = h.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = h.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Errorf("hub %s did not stop on SIGTERM within 60s", h.url)
		_ = h.cmd.Process.Kill()
		<-done
	}
	h.cmd = nil
}

// saysSecured reports whether the hub's log says its routes are TLS
// with a password.
func (h *clusterHub) saysSecured() bool {
	b, _ := os.ReadFile(filepath.Join(h.dir, "hub.log"))
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, `msg="the embedded cluster's routes"`) && strings.Contains(l, "tls=true") && strings.Contains(l, "password=true") {
			return true
		}
	}
	return false
}

// logs are the end of the process's stderr and of its log file.
func (h *clusterHub) logs() string {
	b, _ := os.ReadFile(filepath.Join(h.dir, "hub.log"))
	return "stderr:\n" + lastBytes(h.stderr.String(), 3000) + "\nlog:\n" + lastBytes(string(b), 6000)
}

func lastBytes(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// processTeam is three hubs of one team, each a process, forming the
// embedded cluster on loopback with TLS routes (one CA, a certificate
// each) and a password, over one agent (a real A2A server that counts
// what it receives).
type processTeam struct {
	ag   *agenttest.Agent
	hubs []*clusterHub
	ca   *testcert.CA
}

func startProcessTeam(t *testing.T) *processTeam {
	t.Helper()
	if testing.Short() {
		t.Skip("three hub processes forming a JetStream cluster: not with -short")
	}
	if raceEnabled {
		// The plain run has them; under the race detector the three
		// race-built hubs take minutes, and the hub's own code runs under
		// it in package hub's team tests (in process, the same paths).
		t.Skip("three race-built hub processes: the plain run has this test")
	}
	isolate(t)
	team := &processTeam{ag: agenttest.StartAgent(t), ca: testcert.NewCA(t, "team")}
	routes := loopbackPorts(t, 3)
	for i := range 3 {
		dir := t.TempDir()
		cfg := writeHubConfig(t, dir, []demo.Agent{{Name: "agent", URL: team.ag.URL}}, 100*time.Millisecond)
		addCarol(t, cfg)
		files := writeClusterFiles(t, dir, team.ca)
		addHubTable(t, cfg, "cluster_ca_file", files.ca, "cluster_cert_file", files.cert, "cluster_key_file", files.key,
			"cluster_password_file", files.password)
		listen := freeAddr(t)
		h := &clusterHub{url: "http://" + listen, route: routes[i], dir: dir, files: files,
			args: []string{"--config", cfg, "--listen", listen, "--cluster-listen", routes[i], "--peers", strings.Join(others(routes, i), ",")}}
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("hub %d (%s):\n%s", i, h.url, h.logs())
			}
			h.kill()
		})
		team.hubs = append(team.hubs, h)
	}
	for _, h := range team.hubs { // each waits for the others: start them together
		h.start(t)
	}
	for _, h := range team.hubs {
		h.wait(t)
		if !h.saysSecured() {
			t.Fatalf("hub %s does not say its routes are TLS with a password:\n%s", h.url, h.logs())
		}
	}
	return team
}

// others is all but the i-th.
func others(all []string, i int) []string {
	var out []string
	for j, s := range all {
		if j != i {
			out = append(out, s)
		}
	}
	return out
}

func (team *processTeam) urls() []string {
	var out []string
	for _, h := range team.hubs {
		out = append(out, h.url)
	}
	return out
}

// TestServeClusterProcessesRace: three hub processes of the embedded
// cluster (TLS routes, a password); on every prompt, operators on the
// three hubs send at once: the agent receives exactly one decision per
// prompt (counted at the agent), and every loser is refused naming the
// winner.
func TestServeClusterProcessesRace(t *testing.T) {
	team := startProcessTeam(t)
	ops := []string{"alice", "bob", "carol"}
	dashes := make([]*clusterDash, 3)
	for i, u := range team.urls() {
		dashes[i] = attachDash(t, u, ops[i])
	}
	const prompts, round = 40, 10
	for n := 0; n < prompts; n += round {
		var ids []a2a.TaskID
		for range round {
			ids = append(ids, team.ag.Start("ask"))
		}
		for _, d := range dashes {
			for _, id := range ids {
				d.waitInbox(t, id)
			}
		}
		outs := raceAll(t, dashes, ids)
		for i, id := range ids {
			if got := team.ag.OnTask(id); got != 1 {
				t.Fatalf("prompt %d: the agent received %d replies, want exactly 1", n+i, got)
			}
			checkLosers(t, n+i, dashes, outs[i])
		}
	}
}

// raceAll sends, from every dashboard at once, a reply to every prompt.
func raceAll(t *testing.T, dashes []*clusterDash, ids []a2a.TaskID) [][]approvals.Outcome {
	t.Helper()
	outs := make([][]approvals.Outcome, len(ids))
	var start, sent sync.WaitGroup
	start.Add(1)
	for i, id := range ids {
		outs[i] = make([]approvals.Outcome, len(dashes))
		for k, d := range dashes {
			dec := d.prepare(t, id)
			sent.Add(1)
			go func() { defer sent.Done(); start.Wait(); outs[i][k] = d.svc.Send(context.Background(), dec) }()
		}
	}
	start.Done()
	sent.Wait()
	return outs
}

// checkLosers: exactly one dashboard won, every other names it.
func checkLosers(t *testing.T, n int, dashes []*clusterDash, outs []approvals.Outcome) {
	t.Helper()
	winner, wins := "", 0
	for k, o := range outs {
		if o.Result == approvals.ResultAccepted {
			winner, wins = dashes[k].op, wins+1
		}
	}
	if wins != 1 {
		t.Fatalf("prompt %d: %d sends accepted, want 1", n, wins)
	}
	for k, o := range outs {
		if o.Result != approvals.ResultAccepted && (o.Winner == nil || !strings.HasPrefix(o.Words(), "decided by "+winner+" at ")) {
			t.Fatalf("prompt %d: %s got %q (%v), want it to name %s", n, dashes[k].op, o.Words(), o.Err, winner)
		}
	}
}

// TestServeClusterProcessKilledMidSends: a hub process is killed with
// SIGKILL in the middle of 50 sends through it (a dashboard that knows
// the team's three hubs, five sends at a time); the dashboard goes on
// through another hub, where what was not recorded is sent again. The
// killed hub is started again and rejoins: it serves the fleet and
// takes decisions. Then, read from the stream itself: no decision
// recorded or sent twice, none the dashboard saw accepted lost, every
// one settled; the agent holds exactly the accepted ones.
func TestServeClusterProcessKilledMidSends(t *testing.T) {
	team := startProcessTeam(t)
	urls := team.urls()
	alice := attachDash(t, urls[0], "alice", urls[1], urls[2])
	const sends, killAt = 50, 20
	ids := make([]a2a.TaskID, sends)
	for i := range ids {
		ids[i] = team.ag.Start("ask")
	}
	decs := make([]*approvals.Decision, sends)
	for i, id := range ids {
		alice.waitInbox(t, id)
		decs[i] = alice.prepare(t, id)
	}
	outs := sendKilling(alice, decs, killAt, team.hubs[0].kill)
	eventually(t, "the dashboard back on another hub", func() bool {
		ok, _ := alice.cl.Connected()
		return ok && alice.cl.URL() != urls[0]
	})
	for i, o := range outs {
		if o.Result == approvals.ResultAccepted {
			eventually(t, "an accepted decision on the dashboard's record after the failover", func() bool {
				_, ok := alice.svc.Entry(decs[i].MessageID)
				return ok
			})
		}
	}
	var known []string // the decisions the dashboard saw accepted
	for i, o := range outs {
		if o.Result == approvals.ResultAccepted {
			known = append(known, decs[i].MessageID)
		}
	}
	for i, o := range outs {
		// An unknown outcome was in flight when the hub died: the team's
		// record settles it, by GetTask. What was never recorded is sent
		// again.
		if _, recorded := alice.svc.Entry(decs[i].MessageID); recorded || o.Result == approvals.ResultAccepted || o.Result == approvals.ResultUnknown {
			continue
		}
		t.Logf("prompt %d: %s before the failover; sent again", i, o.Words())
		dec := sendUntilAccepted(t, alice, ids[i])
		known = append(known, dec.MessageID)
	}

	start := time.Now()
	team.hubs[0].start(t)
	team.hubs[0].wait(t)
	t.Logf("the killed hub rejoined in %s", time.Since(start).Round(time.Millisecond))
	back := attachDash(t, urls[0], "bob")
	late := team.ag.Start("ask")
	back.waitInbox(t, late)
	if o := back.svc.Send(context.Background(), back.prepare(t, late)); o.Result != approvals.ResultAccepted {
		t.Fatalf("a decision through the restarted hub: %s (%v)", o.Words(), o.Err)
	}
	settled := time.Now()
	waitLong(t, "every recorded decision settled, seen on the restarted hub", func() bool {
		for _, e := range back.svc.Journal() {
			if e.MessageID != "" && e.Result.Open() {
				return false
			}
		}
		for _, id := range known {
			if _, ok := back.svc.Entry(id); !ok {
				return false
			}
		}
		return true
	})
	t.Logf("every decision settled %s after the restart", time.Since(settled).Round(time.Millisecond))

	for _, h := range team.hubs {
		h.stop(t)
	}
	j := readStream(t, team)
	accepted := map[a2a.TaskID]int{}
	for _, d := range j.decisions {
		if d.count != 1 {
			t.Errorf("decision %s on %s recorded %d times", d.id, d.task, d.count)
		}
		if d.result == "" || approvals.Result(d.result).Open() {
			t.Errorf("decision %s on %s left unsettled (%q)", d.id, d.task, d.result)
		}
		if d.result == string(approvals.ResultAccepted) {
			accepted[d.task]++
		}
	}
	for i, o := range outs {
		if d := j.byID[decs[i].MessageID]; o.Result == approvals.ResultAccepted && (d == nil || d.result != string(approvals.ResultAccepted)) {
			t.Errorf("prompt %d: accepted on the dashboard, but the stream holds %+v", i, d)
		}
	}
	for _, id := range append(ids, late) {
		if got, want := team.ag.OnTask(id), accepted[id]; got != want || got > 1 {
			t.Errorf("task %s: the agent received %d decisions, the stream holds %d accepted", id, got, want)
		}
	}
	byResult := map[approvals.Result]int{}
	for _, o := range outs {
		byResult[o.Result]++
	}
	t.Logf("the 50 sends: %v; the stream: %d decisions, %d accepted", byResult, len(j.decisions), len(accepted))
}

// waitLong waits for cond, as eventually does, for up to three minutes:
// a decision whose writer's send window has to pass first.
func waitLong(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(3 * time.Minute); !cond(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("%s: not within 3 minutes", what)
		}
	}
}

// sendUntilAccepted decides on the prompt through the dashboard's hub
// until the hub takes it: while the cluster elects the stream's new
// leader, before a hub just restarted has seen the task, or while an
// attempt it refused as unrecorded (and that landed after all) is
// being settled, the hub refuses, in words, having sent nothing.
func sendUntilAccepted(t *testing.T, d *clusterDash, id a2a.TaskID) *approvals.Decision {
	t.Helper()
	landed := 0
	defer func() {
		if landed > 0 {
			t.Logf("a decision on %s: an attempt refused as unrecorded landed later; refused %d times \"being sent\" until the hub settled it", id, landed)
		}
	}()
	for end := time.Now().Add(90 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		dec := d.prepareAgain(t, id)
		o := d.svc.Send(context.Background(), dec)
		if o.Result == approvals.ResultAccepted {
			return dec
		}
		notYet := strings.HasPrefix(o.Words(), "not sent: the team's record is unreachable") || // the stream's leader is being elected
			(o.Err != nil && strings.Contains(o.Err.Error(), "the hub does not know task")) || // a hub just restarted has not swept it yet
			// An earlier attempt the hub refused as unrecorded landed after
			// all: "being sent" until the hub settles it refused (nothing
			// was sent), a moment later.
			(o.Winner != nil && o.Winner.Approver == d.op && o.Winner.Result == approvals.ResultPending)
		if notYet && o.Winner != nil {
			landed++
		}
		if !notYet || time.Now().After(end) {
			t.Fatalf("a decision on %s through %s: %s (%v)", id, d.cl.URL(), o.Words(), o.Err)
		}
	}
}

// prepareAgain prepares a reply on the prompt, confirmed again when the
// prompt already has a decision in the record (one refused, nothing
// sent).
func (d *clusterDash) prepareAgain(t *testing.T, id a2a.TaskID) *approvals.Decision {
	t.Helper()
	d.mu.Lock()
	defer d.mu.Unlock()
	it, _ := d.svc.ItemOf(d.fleet, model.TaskKey{Agent: "agent", ID: id})
	in := approvals.Input{Kind: approvals.KindReply, Text: "main"}
	dec, err := d.svc.Prepare(it, in)
	if errors.Is(err, approvals.ErrAlreadyDecided) {
		in.Again = true
		dec, err = d.svc.Prepare(it, in)
	}
	if err != nil {
		t.Fatalf("%s prepares on %s: %v", d.op, id, err)
	}
	return dec
}

// sendKilling sends decs, five at a time, and calls kill once the
// killAt-th send is under way.
func sendKilling(d *clusterDash, decs []*approvals.Decision, killAt int, kill func()) []approvals.Outcome {
	outs := make([]approvals.Outcome, len(decs))
	next := make(chan int)
	killNow := make(chan struct{})
	var wg sync.WaitGroup
	for range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if i == killAt {
					close(killNow)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				outs[i] = d.svc.Send(ctx, decs[i])
				cancel()
			}
		}()
	}
	killed := make(chan struct{})
	go func() { <-killNow; kill(); close(killed) }()
	for i := range decs {
		next <- i
	}
	close(next)
	wg.Wait()
	<-killed
	return outs
}

// streamDecision is what the stream holds of one decision.
type streamDecision struct {
	id, result string
	task       a2a.TaskID
	count      int // its decision records
}

type streamJournal struct {
	decisions []*streamDecision
	byID      map[string]*streamDecision
}

// readStream starts the team's three cluster nodes again in this
// process, on the hubs' state and with their route TLS, and reads the
// journal's stream through jetstore: every record the hubs made durable.
func readStream(t *testing.T, team *processTeam) streamJournal {
	t.Helper()
	var routes []string
	for _, h := range team.hubs {
		routes = append(routes, h.route)
	}
	var srvs []*natsembed.Server
	for i, h := range team.hubs {
		cert, err := tls.LoadX509KeyPair(h.files.cert, h.files.key)
		if err != nil {
			t.Fatal(err)
		}
		pw, err := os.ReadFile(h.files.password)
		if err != nil {
			t.Fatal(err)
		}
		s, err := natsembed.Start(natsembed.Options{Dir: filepath.Join(h.dir, "cluster"), ClusterListen: h.route, Peers: others(routes, i),
			Routes: natsembed.Routes{Cert: &cert, CAs: team.ca.Pool(), Password: strings.TrimSpace(string(pw))}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Stop)
		srvs = append(srvs, s)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	st, err := jetstore.Open(ctx, jetstore.Config{InProcess: srvs[0], Token: srvs[0].Token(), Replicas: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	jl, err := st.Journal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer jl.Close()
	out := streamJournal{byID: map[string]*streamDecision{}}
	err = jl.Read(func(lines []approvals.JournalLine) {
		for _, l := range lines {
			out.fold(t, l.Raw)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func (j *streamJournal) fold(t *testing.T, raw []byte) {
	var r struct {
		Type   string     `json:"type"`
		ID     string     `json:"id"`
		Task   a2a.TaskID `json:"task"`
		Result string     `json:"result"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Errorf("a record of the stream: %v: %s", err, raw)
		return
	}
	if r.ID == "" {
		return
	}
	d := j.byID[r.ID]
	if d == nil && r.Type == "decision" {
		d = &streamDecision{id: r.ID, task: r.Task}
		j.byID[r.ID] = d
		j.decisions = append(j.decisions, d)
	}
	switch {
	case d == nil:
	case r.Type == "decision":
		d.count++
	case r.Type == "outcome" && r.Result != "":
		d.result = r.Result
	}
}

// TestServeClusterProcessFailoverFigures measures how long a dashboard
// that knows the team's three hubs takes to act again through another
// hub after its hub's process is killed with SIGKILL (kill to the first
// claim the new hub takes, and to the first decision it accepts), over
// 20 kills, each hub killed and restarted
// in turn; and how long a killed hub takes to rejoin. Figures for
// BENCHMARKS.md.
func TestServeClusterProcessFailoverFigures(t *testing.T) {
	if os.Getenv("A2ATOP_FIGURES") != "1" {
		t.Skip("figures for BENCHMARKS.md: set A2ATOP_FIGURES=1")
	}
	team := startProcessTeam(t)
	urls := team.urls()
	id := team.ag.Start("ask")
	var failover, decided, rejoin []time.Duration
	stuck := 0 // dashboards refused as following another journal
	const kills = 20
	for n := range kills {
		k := n % 3
		d := attachDash(t, urls[k], "alice", others(urls, k)...)
		d.waitInbox(t, id)
		prompt := team.ag.Start("ask")
		d.waitInbox(t, prompt)
		start := time.Now()
		team.hubs[k].kill()
		var err error
		for end := start.Add(time.Minute); ; time.Sleep(2 * time.Millisecond) {
			if time.Now().After(end) {
				t.Fatalf("kill %d: the dashboard took no claim through another hub within a minute: %v", n, err)
			}
			if d.cl.URL() == urls[k] {
				continue
			}
			if err = d.cl.Claim(context.Background(), "agent", id, "answering"); err == nil || strings.Contains(err.Error(), "is not the one this dashboard followed") {
				break
			}
		}
		if err != nil {
			// The hub it moved to had not yet read the stream as far as
			// the dashboard had: it is taken for another journal, and
			// the dashboard is stuck until restarted (see the note).
			t.Errorf("kill %d: %v", n, err)
			stuck++
		} else {
			failover = append(failover, time.Since(start))
			_ = d.cl.Release(context.Background(), "agent", id)
			sendUntilAccepted(t, d, prompt)
			decided = append(decided, time.Since(start))
		}
		start = time.Now()
		team.hubs[k].start(t)
		team.hubs[k].wait(t)
		rejoin = append(rejoin, time.Since(start))
	}
	t.Logf("dashboard failover after kill -9 of its hub (%d kills, %d dashboards stuck): p50 %s p99 %s max %s", kills, stuck, pct(failover, 50), pct(failover, 99), pct(failover, 100))
	t.Logf("its first decision accepted through another hub after the kill: p50 %s p99 %s max %s", pct(decided, 50), pct(decided, 99), pct(decided, 100))
	t.Logf("killed hub restarted to serving (rejoined the cluster): p50 %s p99 %s max %s", pct(rejoin, 50), pct(rejoin, 99), pct(rejoin, 100))
}

// pct is the p-th percentile of ds (nearest rank).
func pct(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	i := (len(s)*p + 99) / 100
	return s[max(0, min(len(s)-1, i-1))].Round(time.Millisecond)
}

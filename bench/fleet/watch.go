package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/a2aclient"
	"a2atop/internal/cli"
	"a2atop/model"
	"a2atop/ui"
	"a2atop/ui/theme"
)

// watchSpec is what one watch process measures.
type watchSpec struct {
	Ready   readyMsg      `json:"ready"`
	ListAll bool          `json:"listAll"`
	Keep    int           `json:"keep"`
	Startup time.Duration `json:"startup"` // at most this long for the complete picture
	Steady  time.Duration `json:"steady"`  // churn window; 0: none
	Rate    float64       `json:"rate"`    // events per second over the fleet while churning
	Idle    time.Duration `json:"idle"`    // the window with nothing changing
	// StreamsTotal is a2aclient.Options.MaxStreams: 0 for a2atop's
	// default.
	StreamsTotal int `json:"streamsTotal"`
	// MemoryLimit is the watch process's soft memory limit (GOMEMLIMIT),
	// in bytes; 0 for none.
	MemoryLimit int64 `json:"memoryLimit"`
	// Touch: after the idle window, move one SUBMITTED task without a
	// status timestamp to WORKING (/touch) and time until a2atop has it.
	Touch bool `json:"touch"`
	// Profile, when set, is where a CPU profile of the idle window goes
	// (Profile+".churn": of the churn window).
	Profile string `json:"profile"`
}

// watchResult is every figure one watch process measured.
type watchResult struct {
	Mode string `json:"mode"`

	// Per agent, from the card read to the frame that showed it.
	InboxP50, InboxMax     time.Duration
	PictureP50, PictureMax time.Duration
	// From the start of watching to the frame that showed every agent's.
	AllInbox, AllPicture time.Duration
	Incomplete           int // agents whose picture never completed within Startup

	Steady       time.Duration
	EventsPerSec float64 // events the watchers delivered
	StatusPerSec float64 // of them, status changes
	SteadyCPU    float64 // of one core
	ListPerMin   float64 // ListTasks each agent received per minute (mean)
	LatN         int
	LatP50       time.Duration
	LatP99       time.Duration
	LatP999      time.Duration
	LatMax       time.Duration
	LatNotShown  int // status changes never shown (superseded before a frame)
	// LatStream is the same latency of the changes that came by a
	// stream; LatOurs from their arrival at a2atop to the frame.
	LatStream, LatOurs quantiles
	Frames             int64

	RSS, HeapInuse, HeapAlloc     uint64
	RSSFirstHalf, RSSSecondHalf   uint64 // the largest RSS sampled in each half of the steady window
	HeapFirstHalf, HeapSecondHalf uint64

	Idle           time.Duration
	IdleCPU        float64 // of one core
	IdleListPerMin float64
	IdleRSS        uint64
	IdleHeapInuse  uint64

	// TouchSeen is from the touch (Touch) to the watcher's event with the
	// task in WORKING; -1 when it did not come within two minutes.
	TouchSeen time.Duration
}

// watchMain runs a2atop's real watchers, model and dashboard against the
// agents in spec and prints one JSON watchResult.
func watchMain(spec watchSpec) error {
	if spec.MemoryLimit > 0 {
		debug.SetMemoryLimit(spec.MemoryLimit)
	}
	fleet := model.NewFleet(model.Options{MaxTerminalPerAgent: spec.Keep})
	var opts []a2aclient.AgentOptions
	for _, a := range spec.Ready.Agents {
		fleet.AddAgent(a.Name, a.URL)
		opts = append(opts, a2aclient.AgentOptions{Name: a.Name, URL: a.URL, Binding: "auto", Protocol: "auto",
			Subscribe: true, TerminalPerAgent: spec.Keep, ListAll: spec.ListAll})
	}
	mgr := a2aclient.New(opts, a2aclient.Options{MaxStreams: spec.StreamsTotal})
	lat := &latency{pending: map[model.TaskKey][]arrival{}}
	pic := newPicture(spec)
	events := make(chan model.Event, a2aclient.DefaultBuffer)
	var delivered, statuses atomic.Int64
	tw := &touchWatch{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { // between the watchers and the dashboard: what arrived, when
		for {
			select {
			case ev := <-mgr.Events():
				delivered.Add(1)
				tw.saw(ev)
				if ts, key, ok := statusOf(ev); ok {
					statuses.Add(1)
					lat.arrived(key, ts, ev.Source == model.SourceStream)
				}
				if ev.Kind == model.EventAgent {
					pic.cardRead(ev.Agent, time.Now())
				}
				events <- ev
			case <-ctx.Done():
				return
			}
		}
	}()
	m := ui.New(ui.Options{Fleet: fleet, Events: events, Backend: mgr, Output: io.Discard,
		Theme: theme.New(theme.Options{Mode: theme.ModeDark})})
	pr := &probe{ui: m, fleet: fleet, lat: lat, pic: pic}
	p := cli.NewProgram(pr, tea.WithInput(nil), tea.WithOutput(io.Discard), tea.WithoutSignalHandler(), tea.WithFPS(cli.FrameRate))
	progDone := make(chan error, 1)
	go func() { _, err := p.Run(); progDone <- err }()
	p.Send(tea.WindowSizeMsg{Width: 200, Height: 50})

	res := watchResult{Mode: map[bool]string{false: "by state", true: "list all"}[spec.ListAll]}
	start := time.Now()
	pic.begin(start)
	runDone := make(chan struct{})
	go func() { mgr.Run(ctx); close(runDone) }()
	pic.waitComplete(spec.Startup)
	pic.fill(&res)

	ctl := spec.Ready.Control
	if spec.Steady > 0 {
		if err := get(ctl + "/churn?rate=" + strconv.FormatFloat(spec.Rate, 'f', -1, 64)); err != nil {
			return err
		}
		time.Sleep(15 * time.Second) // the executions' first events, streams opened
		lat.record(true)
		w := beginWindow(ctl, &delivered, &statuses)
		rss := sampleMemory(spec.Steady)
		stop := profile(spec.Profile, ".churn")
		time.Sleep(spec.Steady)
		stop()
		w.end(&res.Steady, &res.EventsPerSec, &res.StatusPerSec, &res.SteadyCPU, &res.ListPerMin, len(spec.Ready.Agents))
		lat.record(false)
		lat.fill(&res)
		res.RSSFirstHalf, res.RSSSecondHalf, res.HeapFirstHalf, res.HeapSecondHalf = rss.halves()
		res.RSS, res.HeapInuse, res.HeapAlloc = memNow()
		writeHeapProfile(spec.Profile, ".heap")
		if err := get(ctl + "/churn?rate=0"); err != nil {
			return err
		}
	}
	if spec.Idle > 0 {
		settle(ctl)
		var eps, sps float64
		w := beginWindow(ctl, &delivered, &statuses)
		stop := profile(spec.Profile, "")
		time.Sleep(spec.Idle)
		stop()
		w.end(&res.Idle, &eps, &sps, &res.IdleCPU, &res.IdleListPerMin, len(spec.Ready.Agents))
		res.IdleRSS, res.IdleHeapInuse, _ = memNow()
	}
	if spec.Touch {
		res.TouchSeen = tw.touch(ctl, 2*time.Minute)
	}
	res.Frames = pr.frames.Load()
	p.Quit()
	<-progDone
	cancel()
	<-runDone
	out, _ := json.Marshal(res)
	fmt.Println(string(out))
	return nil
}

// profile starts a CPU profile into path+suffix when path is set, and
// returns what stops it.
func profile(path, suffix string) func() {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path + suffix)
	if err != nil {
		return func() {}
	}
	if pprof.StartCPUProfile(f) != nil {
		f.Close()
		return func() {}
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}

// writeHeapProfile writes the heap profile into path+suffix when path is
// set.
func writeHeapProfile(path, suffix string) {
	if path == "" {
		return
	}
	if f, err := os.Create(path + suffix); err == nil {
		pprof.Lookup("heap").WriteTo(f, 0)
		f.Close()
	}
}

// statusOf is the status timestamp of a status change the watchers
// delivered: a status event, or a snapshot.
func statusOf(ev model.Event) (time.Time, model.TaskKey, bool) {
	switch {
	case ev.Kind == model.EventStatus && ev.Status.Status.Timestamp != nil:
		return *ev.Status.Status.Timestamp, model.TaskKey{Agent: ev.Agent, ID: ev.Status.TaskID}, true
	case ev.Kind == model.EventTask && ev.Task.Status.Timestamp != nil:
		return *ev.Task.Status.Timestamp, model.TaskKey{Agent: ev.Agent, ID: ev.Task.ID}, true
	}
	return time.Time{}, model.TaskKey{}, false
}

// probe is the dashboard's root model as Bubble Tea runs it; after each
// View it notes which status changes that frame shows for the first
// time, and which agents' pictures it completes. It reads the fleet on
// the program's goroutine, which owns it.
type probe struct {
	ui     *ui.Model
	fleet  *model.Fleet
	lat    *latency
	pic    *picture
	frames atomic.Int64
}

func (p *probe) Init() tea.Cmd { return p.ui.Init() }

func (p *probe) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := p.ui.Update(msg)
	return p, cmd
}

func (p *probe) View() string {
	v := p.ui.View()
	now := time.Now()
	p.frames.Add(1)
	p.lat.shown(p.fleet, now)
	p.pic.check(p.fleet, now)
	return v
}

// latency is event-to-screen: from an agent's status timestamp to the
// first frame drawn with that status in the fleet.
type latency struct {
	mu       sync.Mutex
	on       bool
	pending  map[model.TaskKey][]arrival
	samples  []time.Duration // status timestamp to the frame that shows it
	streamed []time.Duration // the same, of the changes that came by a stream
	ours     []time.Duration // arrival at a2atop to the frame that shows it
	notShown int
}

// arrival is one status change as it reached a2atop.
type arrival struct {
	ts, at time.Time
	stream bool
}

func (l *latency) record(on bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.on = on
	if !on {
		for _, as := range l.pending {
			l.notShown += len(as)
		}
		clear(l.pending)
	}
}

func (l *latency) arrived(k model.TaskKey, ts time.Time, stream bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.on {
		l.pending[k] = append(l.pending[k], arrival{ts: ts, at: time.Now(), stream: stream})
	}
}

func (l *latency) shown(f *model.Fleet, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for k, as := range l.pending {
		t := f.Task(k)
		if t == nil {
			continue
		}
		kept := as[:0]
		for _, a := range as {
			switch {
			case !t.Updated.Before(a.ts):
				l.samples = append(l.samples, now.Sub(a.ts))
				l.ours = append(l.ours, now.Sub(a.at))
				if a.stream {
					l.streamed = append(l.streamed, now.Sub(a.ts))
				}
			case now.Sub(a.ts) > time.Minute:
				l.notShown++ // superseded by an older-stamped state? never shown
			default:
				kept = append(kept, a)
			}
		}
		if len(kept) == 0 {
			delete(l.pending, k)
		} else {
			l.pending[k] = kept
		}
	}
}

func (l *latency) fill(r *watchResult) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r.LatNotShown = l.notShown
	var all quantiles
	all, r.LatStream, r.LatOurs = quantilesOf(l.samples), quantilesOf(l.streamed), quantilesOf(l.ours)
	r.LatN, r.LatP50, r.LatP99, r.LatP999, r.LatMax = all.N, all.P50, all.P99, all.P999, all.Max
}

// quantiles sums up latency samples.
type quantiles struct {
	N                   int
	P50, P99, P999, Max time.Duration
}

func quantilesOf(samples []time.Duration) quantiles {
	s := slices.Clone(samples)
	slices.Sort(s)
	if len(s) == 0 {
		return quantiles{}
	}
	q := func(p float64) time.Duration { return s[min(int(p*float64(len(s))), len(s)-1)] }
	return quantiles{N: len(s), P50: q(0.50), P99: q(0.99), P999: q(0.999), Max: s[len(s)-1]}
}

// picture is each agent's complete inbox (every interrupted task) and
// complete picture (every open task, and the newest terminal tasks kept).
type picture struct {
	mu     sync.Mutex
	start  time.Time
	agents map[string]*expect
	done   chan struct{}
	left   int
}

type expect struct {
	info      agentInfo
	keep      int
	card      time.Time
	inbox     time.Time
	pictureAt time.Time
}

func newPicture(spec watchSpec) *picture {
	p := &picture{agents: map[string]*expect{}, done: make(chan struct{}), left: len(spec.Ready.Agents)}
	for _, a := range spec.Ready.Agents {
		p.agents[a.Name] = &expect{info: a, keep: min(spec.Keep, a.Terminal)}
	}
	return p
}

func (p *picture) begin(t time.Time) {
	p.mu.Lock()
	p.start = t
	p.mu.Unlock()
}

func (p *picture) cardRead(agent string, t time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e := p.agents[agent]; e != nil && e.card.IsZero() {
		e.card = t
	}
}

func (p *picture) check(f *model.Fleet, now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.left == 0 {
		return
	}
	for name, e := range p.agents {
		if !e.pictureAt.IsZero() {
			continue
		}
		a := f.Agent(name)
		if a == nil {
			continue
		}
		if e.inbox.IsZero() && a.Counts[model.ClassInterrupted] >= len(e.info.Interrupted) && holds(f, name, e.info.Interrupted) {
			e.inbox = now
		}
		if !e.inbox.IsZero() && a.Counts[model.ClassActive]+a.Counts[model.ClassInterrupted] >= e.info.Open &&
			a.Counts[model.ClassTerminal] >= e.keep && holds(f, name, e.info.Newest) {
			e.pictureAt = now
			if p.left--; p.left == 0 {
				close(p.done)
			}
		}
	}
}

func holds(f *model.Fleet, agent string, ids []a2a.TaskID) bool {
	for _, id := range ids {
		if f.Task(model.TaskKey{Agent: agent, ID: id}) == nil {
			return false
		}
	}
	return true
}

func (p *picture) waitComplete(d time.Duration) {
	select {
	case <-p.done:
	case <-time.After(d):
	}
}

func (p *picture) fill(r *watchResult) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var inbox, pic []time.Duration
	for _, e := range p.agents {
		if e.pictureAt.IsZero() || e.card.IsZero() {
			r.Incomplete++
			continue
		}
		inbox = append(inbox, e.inbox.Sub(e.card))
		pic = append(pic, e.pictureAt.Sub(e.card))
		r.AllInbox = max(r.AllInbox, e.inbox.Sub(p.start))
		r.AllPicture = max(r.AllPicture, e.pictureAt.Sub(p.start))
	}
	slices.Sort(inbox)
	slices.Sort(pic)
	if len(inbox) > 0 {
		r.InboxP50, r.InboxMax = inbox[len(inbox)/2], inbox[len(inbox)-1]
		r.PictureP50, r.PictureMax = pic[len(pic)/2], pic[len(pic)-1]
	}
}

// window measures one stretch of time: CPU, events, requests.
type window struct {
	ctl                string
	start              time.Time
	cpu                time.Duration
	events, statuses   int64
	list               int64
	delivered, statusN *atomic.Int64
}

func beginWindow(ctl string, delivered, statuses *atomic.Int64) *window {
	w := &window{ctl: ctl, start: time.Now(), cpu: cpuTime(), events: delivered.Load(), statuses: statuses.Load(),
		delivered: delivered, statusN: statuses}
	w.list = listTotal(ctl)
	return w
}

func (w *window) end(d *time.Duration, eps, sps, cpu, listPerMin *float64, agents int) {
	el := time.Since(w.start)
	*d = el.Round(time.Second)
	*eps = float64(w.delivered.Load()-w.events) / el.Seconds()
	*sps = float64(w.statusN.Load()-w.statuses) / el.Seconds()
	*cpu = float64(cpuTime()-w.cpu) / float64(el)
	*listPerMin = float64(listTotal(w.ctl)-w.list) / float64(agents) / el.Minutes()
}

// listTotal is the ListTasks requests every agent received so far.
func listTotal(ctl string) int64 {
	var n int64
	for _, v := range stats(ctl).ListTasks {
		n += v
	}
	return n
}

func stats(ctl string) statsMsg {
	var s statsMsg
	resp, err := http.Get(ctl + "/stats")
	if err != nil {
		return s
	}
	defer resp.Body.Close()
	json.NewDecoder(resp.Body).Decode(&s)
	return s
}

// settle waits until nothing is left to happen: the last events drained
// and every open task tried once for a stream (a task whose execution
// is not running is asked once, SubscribeToTask then GetTask, and then
// left to sweeps), at most 15 minutes.
func settle(ctl string) {
	subs := func() (n int64) {
		for _, v := range stats(ctl).Subscribe {
			n += v
		}
		return n
	}
	time.Sleep(15 * time.Second)
	prev := subs()
	for deadline := time.Now().Add(15 * time.Minute); time.Now().Before(deadline); {
		time.Sleep(15 * time.Second)
		n := subs()
		if n == prev {
			return
		}
		prev = n
	}
}

func get(url string) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}

// cpuTime is the CPU this process used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// memNow is the resident set (VmRSS), the heap in use and the live heap.
func memNow() (rss, inuse, alloc uint64) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return vmRSS(), ms.HeapInuse, ms.HeapAlloc
}

func vmRSS() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// memSamples samples RSS and heap every 10 s through a window.
type memSamples struct {
	mu    sync.Mutex
	start time.Time
	d     time.Duration
	rss   [2]uint64
	heap  [2]uint64
}

func sampleMemory(d time.Duration) *memSamples {
	s := &memSamples{start: time.Now(), d: d}
	go func() {
		for time.Since(s.start) < d {
			time.Sleep(10 * time.Second)
			rss, inuse, _ := memNow()
			half := min(int(2*time.Since(s.start)/d), 1)
			s.mu.Lock()
			s.rss[half] = max(s.rss[half], rss)
			s.heap[half] = max(s.heap[half], inuse)
			s.mu.Unlock()
		}
	}()
	return s
}

func (s *memSamples) halves() (rss1, rss2, heap1, heap2 uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rss[0], s.rss[1], s.heap[0], s.heap[1]
}

// touchWatch times one touched task (/touch) to the watcher's event
// that has it in WORKING. Safe for concurrent use.
type touchWatch struct {
	mu   sync.Mutex
	key  model.TaskKey
	seen chan time.Time
}

// saw notes ev if it is the touched task's, in WORKING.
func (w *touchWatch) saw(ev model.Event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.seen == nil {
		return
	}
	var id a2a.TaskID
	var st a2a.TaskState
	switch {
	case ev.Kind == model.EventTask:
		id, st = ev.Task.ID, ev.Task.Status.State
	case ev.Kind == model.EventStatus:
		id, st = ev.Status.TaskID, ev.Status.Status.State
	default:
		return
	}
	if (model.TaskKey{Agent: ev.Agent, ID: id}) == w.key && model.NormalizeState(st) == a2a.TaskStateWorking {
		w.seen <- time.Now()
		w.seen = nil
	}
}

// touch asks the agents process to touch a task and waits at most d for
// it to arrive: the time it took, or -1.
func (w *touchWatch) touch(ctl string, d time.Duration) time.Duration {
	seen := make(chan time.Time, 1)
	resp, err := http.Get(ctl + "/touch")
	if err != nil {
		return -1
	}
	var m touchMsg
	err = json.NewDecoder(resp.Body).Decode(&m)
	resp.Body.Close()
	if err != nil {
		return -1
	}
	w.mu.Lock()
	w.key, w.seen = model.TaskKey{Agent: m.Agent, ID: m.ID}, seen
	w.mu.Unlock()
	select {
	case at := <-seen:
		return at.Sub(m.At)
	case <-time.After(d):
		return -1
	}
}

package a2aclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
)

// hostileLister is an A2A agent, a raw JSON-RPC server on loopback, whose
// ListTasks never ends in a way the SDK's server cannot be made to
// answer:
//
//	tokens  one task per page and a new page token of 1 MiB each time
//	open    pages of 20,000 new WORKING tasks, a new token each time
//	padded  one new WORKING task per page with a 4 MiB status message
type hostileLister struct {
	mode  string
	pages atomic.Int64
	url   string
}

func startHostileLister(t *testing.T, mode string) *hostileLister {
	t.Helper()
	h := &hostileLister{mode: mode}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h.url = "http://" + l.Addr().String()
	card, _ := json.Marshal(&a2a.AgentCard{Name: "hostile " + mode, Description: "lists without end", Version: "1",
		SupportedInterfaces: []*a2a.AgentInterface{a2a.NewAgentInterface(h.url+"/rpc", a2a.TransportProtocolJSONRPC)},
		DefaultInputModes:   []string{"text"}, DefaultOutputModes: []string{"text"}})
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/agent-card.json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(card)
	})
	mux.HandleFunc("/rpc", h.rpc)
	srv := &http.Server{Handler: mux}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return h
}

func (h *hostileLister) rpc(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"params"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":`)
	b.Write(req.ID)
	switch req.Method {
	case "ListTasks":
		b.WriteString(`,"result":`)
		h.page(&b, req.Params.Status)
	case "GetTask":
		b.WriteString(`,"result":{"id":` + strconv.Quote(req.Params.ID) + `,"contextId":"c","status":{"state":"TASK_STATE_WORKING"}}`)
	default:
		b.WriteString(`,"error":{"code":-32601,"message":"method not found"}`)
	}
	b.WriteString("}")
	w.Write([]byte(b.String()))
}

// page writes one ListTasks result: new tasks and a new token.
func (h *hostileLister) page(b *strings.Builder, status string) {
	n := h.pages.Add(1)
	if status == "" {
		status = "TASK_STATE_WORKING"
	}
	ts := time.Now().UTC().Format(time.RFC3339Nano)
	task := func(i int, text string) {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(b, `{"id":"p%d-%d","contextId":"c","status":{"state":%q,"timestamp":%q`, n, i, status, ts)
		if text != "" {
			fmt.Fprintf(b, `,"message":{"messageId":"m%d-%d","role":"ROLE_AGENT","parts":[{"text":%q}]}`, n, i, text)
		}
		b.WriteString("}}")
	}
	b.WriteString(`{"tasks":[`)
	token := fmt.Sprintf("page-%d", n)
	switch h.mode {
	case "tokens":
		task(0, "")
		token += strings.Repeat("x", 1<<20)
	case "open":
		for i := range 20000 {
			task(i, "")
		}
	case "padded":
		task(0, strings.Repeat("p", 4<<20))
	}
	fmt.Fprintf(b, `],"pageSize":100,"totalSize":1000000000,"nextPageToken":%q}`, token)
}

// heapSampler records the largest heap seen while an attack runs.
type heapSampler struct {
	peak atomic.Uint64
	stop chan struct{}
	done chan struct{}
}

func sampleHeap() *heapSampler {
	s := &heapSampler{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > s.peak.Load() {
				s.peak.Store(ms.HeapInuse)
			}
			select {
			case <-s.stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	return s
}

func (s *heapSampler) end() uint64 {
	close(s.stop)
	<-s.done
	return s.peak.Load()
}

// vmHWM reads the process's peak resident set, after resetRSSPeak.
func vmHWM() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "?"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}

func resetRSSPeak() { os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// maxAttackHeap is what the heap may reach while one hostile agent lists
// without end next to a healthy one: what the bounds let in flight (a
// few pages of at most max_message_bytes, decoded), what they let be
// kept (10,000 open tasks, max_agent_bytes of their content) and the
// garbage the collector has not yet taken. Before the bounds, each
// attack passed it within seconds.
const maxAttackHeap = 400 << 20

// attackPages is how many pages each attack offers at most, enough to
// pass maxAttackHeap with nothing bounding it: 400 tokens of 1 MiB, 40
// pages of 20,000 tasks, 120 messages of 4 MiB.
var attackPages = map[string]int64{"tokens": 400, "open": 40, "padded": 120}

// A hostile agent whose listing never ends (new page tokens of 1 MiB,
// pages of 20,000 new open tasks, pages of 4 MiB messages) is an error or
// a cap on its own row; the heap stays under a bound however long it
// lasts; and the healthy agent beside it is untouched. The consumer is a
// model.Fleet, as in the dashboard. Each attack runs until the agent has
// offered attackPages pages, or its row has shown the bound for a second,
// or 20 s passed; with A2ATOP_ATTACK_SECONDS=N, for N seconds whatever
// happens (for the figures in BENCHMARKS.md).
func TestHostileListingMemoryBounded(t *testing.T) {
	for _, mode := range []string{"tokens", "open", "padded"} {
		t.Run(mode, func(t *testing.T) {
			bad := startHostileLister(t, mode)
			good := startAgent(t, kindJSONRPC, false, nil)
			ask := good.send(t, "ask")
			ob := fast("bad", bad.url)
			if raceEnabled {
				ob.MaxSweepBytes = 32 << 20 // the same bound, reached in the time the race detector leaves
			}
			m := New([]AgentOptions{ob, fast("good", good.url())}, Options{})
			fleet := model.NewFleet(model.Options{})
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { m.Run(ctx); close(done) }()
			applied := make(chan struct{})
			var badHealth atomic.Pointer[model.HealthUpdate]
			go func() { // the dashboard's loop: batches into the fleet
				defer close(applied)
				for {
					select {
					case <-done:
						return
					case ev := <-m.Events():
						batch := []model.Event{ev}
						for more := true; more; {
							select {
							case e := <-m.Events():
								batch = append(batch, e)
							default:
								more = false
							}
						}
						fleet.Apply(batch)
						if a := fleet.Agent("bad"); a != nil {
							h := a.Health
							badHealth.Store(&h)
						}
					}
				}
			}()
			runtime.GC()
			resetRSSPeak()
			s := sampleHeap()
			start := time.Now()
			limit, pages := 20*time.Second, attackPages[mode]
			fixed, _ := strconv.Atoi(os.Getenv("A2ATOP_ATTACK_SECONDS"))
			if fixed > 0 {
				limit, pages = time.Duration(fixed)*time.Second, 1<<62
			}
			var shown time.Time
			for bad.pages.Load() < pages && time.Since(start) < limit &&
				(fixed > 0 || shown.IsZero() || time.Since(shown) < time.Second) {
				if h := badHealth.Load(); shown.IsZero() && h != nil && h.Err != "" {
					shown = time.Now()
				}
				time.Sleep(20 * time.Millisecond)
			}
			peak := s.end()
			cancel()
			<-done
			<-applied
			t.Logf("%s: %d pages served in %s; peak heap in use %d MiB; peak RSS %s; fleet %d tasks",
				mode, bad.pages.Load(), time.Since(start).Round(time.Millisecond), peak>>20, vmHWM(), fleet.Len())
			if peak > maxAttackHeap {
				t.Errorf("peak heap %d MiB, past %d MiB", peak>>20, maxAttackHeap>>20)
			}
			b, g := fleet.Agent("bad"), fleet.Agent("good")
			if b == nil || b.Health.Err == "" {
				t.Errorf("the hostile agent's row shows no error")
			} else {
				t.Logf("hostile row: %s: %s (%v, good %v)", b.Health.State, b.Health.Err, b.Counts, g.Counts)
			}
			if g == nil || !g.Health.State.Up() || g.Health.Err != "" || fleet.Task(model.TaskKey{Agent: "good", ID: ask}) == nil {
				t.Errorf("the healthy agent was disturbed")
			}
		})
	}
}

package cli

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

	"a2atop/demo"
)

// endlessLister is an A2A agent, a raw JSON-RPC server on loopback, whose
// ListTasks never ends: in mode "tokens" every page holds one task and a
// new page token of 1 MiB; in "small" a new token of 8 KiB; in mode
// "open" every page holds 20,000 new WORKING tasks and a new token.
type endlessLister struct {
	mode  string
	pages atomic.Int64
	url   string
}

func startEndlessLister(t *testing.T, mode string) *endlessLister {
	t.Helper()
	h := &endlessLister{mode: mode}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h.url = "http://" + l.Addr().String()
	card, _ := json.Marshal(&a2a.AgentCard{Name: "endless-" + mode, Description: "lists without end", Version: "1",
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

func (h *endlessLister) rpc(w http.ResponseWriter, r *http.Request) {
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

func (h *endlessLister) page(b *strings.Builder, status string) {
	n := h.pages.Add(1)
	if status == "" {
		status = "TASK_STATE_WORKING"
	}
	ts := time.Now().UTC().Format(time.RFC3339Nano)
	tasks := 1
	token := fmt.Sprintf("page-%d", n)
	switch h.mode {
	case "tokens":
		token += strings.Repeat("x", 1<<20)
	case "small":
		token += strings.Repeat("x", 8<<10)
	default:
		tasks = 20000
	}
	b.WriteString(`{"tasks":[`)
	for i := range tasks {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(b, `{"id":"p%d-%d","contextId":"c","status":{"state":%q,"timestamp":%q}}`, n, i, status, ts)
	}
	fmt.Fprintf(b, `],"pageSize":100,"totalSize":1000000000,"nextPageToken":%q}`, token)
}

// peakHeap samples the heap in use until stop is closed and returns the
// largest value seen.
func peakHeap(stop <-chan struct{}) <-chan uint64 {
	out := make(chan uint64, 1)
	go func() {
		var ms runtime.MemStats
		var peak uint64
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
			select {
			case <-stop:
				out <- peak
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	return out
}

// `tasks --json` next to agents whose ListTasks never ends (new 1 MiB
// page tokens; new 8 KiB ones; pages of 20,000 new open tasks) ends on its own, with the
// bound each of them passed as the error of its row, the demo agents
// listed untouched, and the heap bounded all along: before the bounds the
// first took the command to 2 GB in 45 s.
func TestTasksJSONEndlessListings(t *testing.T) {
	dir := isolate(t)
	agents := startDemo(t, demo.Options{NoPlanner: true})
	id := startTask(t, agents[0].URL)
	tokens, small, open := startEndlessLister(t, "tokens"), startEndlessLister(t, "small"), startEndlessLister(t, "open")
	cfg := writeConfig(t, dir, append(agents, demo.Agent{Name: "tokens", URL: tokens.url},
		demo.Agent{Name: "small", URL: small.url}, demo.Agent{Name: "open", URL: open.url}))
	// The page bound lower than its default, so that the test is short.
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, append([]byte("max_sweep_pages = 300\n"), b...), 0o600); err != nil {
		t.Fatal(err)
	}

	runtime.GC()
	stop := make(chan struct{})
	peak := peakHeap(stop)
	start := time.Now()
	code, out, errOut := runCmd(context.Background(), "tasks", "--json", "--timeout", "60s", "--config", cfg)
	close(stop)
	heap := <-peak
	t.Logf("tasks --json: %s; %d, %d and %d pages served; peak heap in use %d MiB",
		time.Since(start).Round(time.Millisecond), tokens.pages.Load(), small.pages.Load(), open.pages.Load(), heap>>20)
	if code != exitFailed || !strings.Contains(errOut, "did not answer") {
		t.Errorf("tasks = %d, stderr %q; want %d and the agents that did not answer", code, errOut, exitFailed)
	}
	var doc struct {
		Agents []struct{ Name, Health, Error string }
		Tasks  []struct{ Agent, ID string }
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("output is not JSON: %v", err)
	}
	for _, a := range doc.Agents {
		switch a.Name {
		case "tokens", "small", "open":
			if a.Error == "" {
				t.Errorf("%s: no error on its row: %+v", a.Name, a)
			}
			t.Logf("%s: %s", a.Name, a.Error)
		default:
			if a.Error != "" {
				t.Errorf("demo agent %s: %q", a.Name, a.Error)
			}
		}
	}
	found := false
	for _, tk := range doc.Tasks {
		found = found || tk.Agent == demo.TestRunner && tk.ID == string(id)
	}
	if !found {
		t.Errorf("the demo agent's task %s is not listed", id)
	}
	if heap > 400<<20 {
		t.Errorf("peak heap %d MiB, past 400 MiB", heap>>20)
	}
}

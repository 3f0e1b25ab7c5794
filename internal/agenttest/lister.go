package agenttest

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// The ways a Lister's ListTasks never ends: each page holds
//
//	ListTokens  one new task and a new page token of 1 MiB
//	ListSmall   one new task and a new page token of 8 KiB
//	ListOpen    20,000 new tasks and a new page token
//	ListPadded  one new task with a status message of 4 MiB and a new page token
//
// The tasks are in the state the request asks for, WORKING when it asks
// for none, and every page says a total of a billion.
const (
	ListTokens = "tokens"
	ListSmall  = "small"
	ListOpen   = "open"
	ListPadded = "padded"
)

// Lister is an A2A agent, a raw JSON-RPC server on 127.0.0.1, whose
// ListTasks never ends in one of the ways above, which the SDK's server
// cannot be made to answer. GetTask answers WORKING; other methods are
// not found. The server stops when the test ends.
type Lister struct {
	// URL is the agent's base URL; its card is at the well-known path.
	URL   string
	mode  string
	pages atomic.Int64
}

// StartLister starts a Lister whose listing never ends in mode (one of
// the List constants), stopped when t ends.
func StartLister(t testing.TB, mode string) *Lister {
	t.Helper()
	switch mode {
	case ListTokens, ListSmall, ListOpen, ListPadded:
	default:
		t.Fatalf("agenttest: no listing mode %q", mode)
	}
	h := &Lister{mode: mode}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h.URL = "http://" + l.Addr().String()
	card, _ := json.Marshal(&a2a.AgentCard{Name: "endless " + mode, Description: "lists without end", Version: "1",
		SupportedInterfaces: []*a2a.AgentInterface{a2a.NewAgentInterface(h.URL+"/rpc", a2a.TransportProtocolJSONRPC)},
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

// Pages is how many ListTasks pages the agent has served.
func (h *Lister) Pages() int64 { return h.pages.Load() }

func (h *Lister) rpc(w http.ResponseWriter, r *http.Request) {
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
func (h *Lister) page(b *strings.Builder, status string) {
	n := h.pages.Add(1)
	if status == "" {
		status = "TASK_STATE_WORKING"
	}
	ts := time.Now().UTC().Format(time.RFC3339Nano)
	tasks, text := 1, ""
	token := fmt.Sprintf("page-%d", n)
	switch h.mode {
	case ListTokens:
		token += strings.Repeat("x", 1<<20)
	case ListSmall:
		token += strings.Repeat("x", 8<<10)
	case ListOpen:
		tasks = 20000
	case ListPadded:
		text = strings.Repeat("p", 4<<20)
	}
	b.WriteString(`{"tasks":[`)
	for i := range tasks {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(b, `{"id":"p%d-%d","contextId":"c","status":{"state":%q,"timestamp":%q`, n, i, status, ts)
		if text != "" {
			fmt.Fprintf(b, `,"message":{"messageId":"m%d-%d","role":"ROLE_AGENT","parts":[{"text":%q}]}`, n, i, text)
		}
		b.WriteString("}}")
	}
	fmt.Fprintf(b, `],"pageSize":100,"totalSize":1000000000,"nextPageToken":%q}`, token)
}

// HeapSampler records the largest heap in use seen while it runs,
// sampled every 50 ms.
type HeapSampler struct {
	peak atomic.Uint64
	stop chan struct{}
	done chan struct{}
}

// SampleHeap starts a HeapSampler.
func SampleHeap() *HeapSampler {
	s := &HeapSampler{stop: make(chan struct{}), done: make(chan struct{})}
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

// Stop ends the sampling and returns the peak, in bytes.
func (s *HeapSampler) Stop() uint64 {
	close(s.stop)
	<-s.done
	return s.peak.Load()
}

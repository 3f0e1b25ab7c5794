package sdktest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Hostile is a raw A2A-shaped peer that misbehaves on purpose: the
// hostile peer is the one place a hand-written server is right.
type Hostile struct {
	srv  *http.Server
	URL  string // its origin; JSON-RPC is at URL+"/rpc"
	mode string // "badjson", "badsse", "bigsse", "stall", "tricklesse"
}

// StartHostile runs a Hostile peer on loopback in mode, until the test
// ends. Every mode answers CancelTask with the unknown code -32050;
// badjson cuts ListTasks' answer short, badsse and bigsse stream an event
// that is not JSON or one past 64 KiB, stall stops half-way through an
// event, tricklesse grows one a byte at a time.
func StartHostile(t testing.TB, mode string) *Hostile {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := &Hostile{URL: "http://" + l.Addr().String(), mode: mode}
	h.srv = &http.Server{Handler: http.HandlerFunc(h.serve)}
	go h.srv.Serve(l)
	t.Cleanup(func() { h.srv.Close() })
	return h
}

// hostileTask is the one task the Hostile peer lists and gets.
const hostileTask = `{"id":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING","timestamp":"2026-01-01T00:00:00Z"}}`

func (h *Hostile) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		fmt.Fprintf(w, `{"name":"hostile","description":"d","version":"1","supportedInterfaces":[{"url":%q,"protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"capabilities":{"streaming":true},"defaultInputModes":["text"],"defaultOutputModes":["text"],"skills":[]}`, h.URL+"/rpc")
		return
	}
	var req struct {
		ID     string `json:"id"`
		Method string `json:"method"`
	}
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &req)
	switch {
	case req.Method == "ListTasks" && h.mode == "badjson":
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%q,"result":{"tasks":[{"id":`, req.ID)
	case req.Method == "ListTasks":
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%q,"result":{"tasks":[%s],"nextPageToken":"","pageSize":100,"totalSize":1}}`, req.ID, hostileTask)
	case req.Method == "GetTask":
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%q,"result":%s}`, req.ID, hostileTask)
	case req.Method == "CancelTask":
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%q,"error":{"code":-32050,"message":"custom refusal"}}`, req.ID)
	case req.Method == "SubscribeToTask":
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		bw := bufio.NewWriter(w)
		if h.mode == "tricklesse" { // an event that grows a byte at a time, forever
			fmt.Fprint(bw, "data: {\"jsonrpc\":\"2.0\",\"result\":\"")
			for {
				bw.WriteString("x")
				bw.Flush()
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
		}
		if h.mode == "stall" {
			fmt.Fprint(bw, "data: {\"jsonrpc\":\"2.0\",\"result\":")
			bw.Flush()
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		if h.mode == "bigsse" {
			fmt.Fprintf(bw, "data: {\"jsonrpc\":\"2.0\",\"id\":%q,\"result\":{\"task\":%s},\"pad\":\"%s\"}\n\n", req.ID, hostileTask, strings.Repeat("x", 64<<10))
		} else {
			fmt.Fprint(bw, "data: {this is not json\n\n")
		}
		bw.Flush()
	default:
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%q,"error":{"code":-32601,"message":"nope"}}`, req.ID)
	}
}

package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// rawCall makes one HTTP request with an optional A2A-Version header and
// returns status, Content-Type and body.
func rawCall(t *testing.T, method, url, version, body string) (int, string, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var rd io.Reader
	if body != "" {
		rd = bytes.NewBufferString(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if version != "" {
		req.Header.Set("A2A-Version", version)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), b
}

const listTasksRPC = `{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{}}`

// TestJSPeerMissingVersionIsRead03 proves, with raw HTTP, why a2atop must
// send A2A-Version on every call: the JS peer reads a request without it as
// protocol 0.3 (spec §3.6.2). A 1.0-only instance refuses it with
// VersionNotSupported (-32009); an instance with the 0.3 layer on answers it
// in the 0.3 dialect, where "ListTasks" does not exist (-32601) and
// "message/send" returns a 0.3-shaped task ("kind", lower-case states).
func TestJSPeerMissingVersionIsRead03(t *testing.T) {
	v1 := startPeer(t, "--step-ms=5")
	legacy := startPeer(t, "--legacy", "--step-ms=5")

	if _, _, b := rawCall(t, "POST", v1.URL+"/a2a/jsonrpc", "1.0", listTasksRPC); rpcErrorIn(b) != nil {
		t.Fatalf("ListTasks with A2A-Version 1.0 failed: %s", b)
	}
	_, _, b := rawCall(t, "POST", v1.URL+"/a2a/jsonrpc", "", listTasksRPC)
	if e := rpcErrorIn(b); e == nil || e.Code != -32009 {
		t.Fatalf("1.0-only peer, no A2A-Version: %s; want error -32009 (version 0.3 not supported)", b)
	}
	status, _, b := rawCall(t, "GET", v1.URL+"/a2a/rest/tasks", "", "")
	if status != 400 || restReason(b) != "VERSION_NOT_SUPPORTED" {
		t.Fatalf("1.0-only peer, REST without A2A-Version: %d %s; want 400 VERSION_NOT_SUPPORTED", status, b)
	}

	_, _, b = rawCall(t, "POST", legacy.URL+"/a2a/jsonrpc", "", listTasksRPC)
	if e := rpcErrorIn(b); e == nil || e.Code != -32601 {
		t.Fatalf("0.3-capable peer, no A2A-Version, v1.0 method: %s; want -32601 (read as 0.3, no such method)", b)
	}
	send03 := `{"jsonrpc":"2.0","id":2,"method":"message/send","params":{"message":{"kind":"message","messageId":"m-1","role":"user","parts":[{"kind":"text","text":"ask"}]}}}`
	_, _, b = rawCall(t, "POST", legacy.URL+"/a2a/jsonrpc", "", send03)
	var res struct {
		Result struct {
			Kind   string `json:"kind"`
			ID     string `json:"id"`
			Status struct {
				State string `json:"state"`
			} `json:"status"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &res); err != nil || res.Result.Kind != "task" || res.Result.Status.State != "input-required" {
		t.Fatalf("0.3-capable peer, no A2A-Version, message/send: %s; want a 0.3 task (kind task, state input-required)", b)
	}
	_, _, b = rawCall(t, "POST", legacy.URL+"/a2a/jsonrpc", "1.0", listTasksRPC)
	if rpcErrorIn(b) != nil {
		t.Fatalf("0.3-capable peer, A2A-Version 1.0: %s; want the 1.0 ListTasks answer", b)
	}

	// The card too is negotiated by the header on the 0.3-capable instance.
	_, _, b = rawCall(t, "GET", legacy.URL+"/.well-known/agent-card.json", "", "")
	var card struct {
		URL             string `json:"url"`
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(b, &card) != nil || card.ProtocolVersion != "0.3" || card.URL == "" {
		t.Fatalf("0.3-capable peer card without A2A-Version: %s; want the 0.3 card shape", b)
	}
}

// TestJS03RESTSendIsCreated pins why a2atop cannot talk 0.3 over HTTP+JSON
// to the JS SDK: its 0.3 REST layer answers v1/message:send with 201
// Created, and the Go SDK's 0.3 REST client treats every status other than
// 200 as an error (ErrInternalError), although the task was created.
func TestJS03RESTSendIsCreated(t *testing.T) {
	p := startPeer(t, "--legacy", "--step-ms=5")
	c, rec := sdkClient(t, p.URL, clientOpts{Binding: a2a.TransportProtocolHTTPJSON, Version: "0.3"})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: textMsg("", "ask")})
	last := lastExchange(rec)
	if err == nil || !errors.Is(err, a2a.ErrInternalError) {
		t.Fatalf("0.3 REST SendMessage: err %v; pinned: ErrInternalError", err)
	}
	if last.Path != "/a2a/rest/v1/message:send" || last.Status != 201 || !strings.Contains(string(last.Body), "TASK_STATE_INPUT_REQUIRED") {
		t.Fatalf("raw: %s %d %s; pinned: 201 Created with the task", last.Path, last.Status, last.Body)
	}
}

// TestGoPeerIgnoresMissingVersion pins the other side: a Go SDK server
// does not look at A2A-Version, so a request without it is served as 1.0.
// Agents differ; a2atop always sends the header (TestManagerAlwaysSendsVersion).
func TestGoPeerIgnoresMissingVersion(t *testing.T) {
	ga := startGoAgent(t, true)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "POST", ga.URL+"/a2a/jsonrpc", bytes.NewBufferString(listTasksRPC))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer someone")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if e := rpcErrorIn(b); e != nil || !bytes.Contains(b, []byte(`"tasks"`)) {
		t.Fatalf("Go agent, ListTasks without A2A-Version: %s; pinned: served as 1.0", b)
	}
}

package a2aclient

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// The raw capture of one agent holds at most captureBytes however large
// its answers: big answers push old exchanges out, the newest stays.
func TestCaptureRingBoundedByBytes(t *testing.T) {
	a := startAgent(t, kindJSONRPC, false, nil)
	id := a.send(t, "big:300000")
	a.stored(t, id, a2a.TaskStateInputRequired)
	m := New([]AgentOptions{fast("a", a.url())}, Options{})
	for range 40 {
		if _, err := m.Get(t.Context(), "a", id, 0, false); err != nil {
			t.Fatal(err)
		}
	}
	got := m.Capture("a")
	total := 0
	for _, ex := range got {
		total += len(ex.Request) + len(ex.Response)
	}
	if total > captureBytes+captureRequestBytes+captureResponseBytes || len(got) >= 40 {
		t.Errorf("the capture holds %d exchanges, %d bytes; want at most about %d bytes", len(got), total, captureBytes)
	}
	if last := got[len(got)-1]; last.RPC != "GetTask" || len(last.Response) < captureResponseBytes {
		t.Errorf("the newest exchange is %s with %d response bytes", last.RPC, len(last.Response))
	}
}

// In a fleet the rings share captureFleetBytes: each agent of forty
// holds its share, not captureBytes.
func TestCaptureRingsShareTheFleetsBytes(t *testing.T) {
	a := startAgent(t, kindJSONRPC, false, nil)
	id := a.send(t, "big:300000")
	a.stored(t, id, a2a.TaskStateInputRequired)
	agents := []AgentOptions{fast("a", a.url())}
	for i := range 39 {
		agents = append(agents, fast(fmt.Sprint("idle", i), "http://127.0.0.1:1"))
	}
	m := New(agents, Options{})
	for range 40 {
		if _, err := m.Get(t.Context(), "a", id, 0, false); err != nil {
			t.Fatal(err)
		}
	}
	total := 0
	for _, ex := range m.Capture("a") {
		total += len(ex.Request) + len(ex.Response)
	}
	if share := captureShare(40); share >= captureBytes || total > share+captureRequestBytes+captureResponseBytes {
		t.Errorf("one agent of forty holds %d bytes of capture; want at most about its share, %d", total, share)
	}
}

// An open stream's capture keeps the tail of what it sent, at most twice
// captureStreamBytes, in a buffer no bigger however big an event was: a
// fleet holds one per open stream.
func TestCaptureStreamTailBounded(t *testing.T) {
	var r record
	line := []byte(strings.Repeat("x", 999) + "\n")
	for range 100 {
		r.appendResponse(line, true)
	}
	big := append(bytes.Repeat([]byte("b"), 4<<20), "end\n"...)
	r.appendResponse(big, true)
	if len(r.rsp) > 2*captureStreamBytes || cap(r.rsp) > 2*captureStreamBytes || !bytes.HasSuffix(r.rsp, []byte("bend\n")) || !r.cut {
		t.Fatalf("after a 4 MiB event: %d bytes held in %d, cut %v", len(r.rsp), cap(r.rsp), r.cut)
	}
	for range 100 {
		r.appendResponse(line, true)
	}
	if len(r.rsp) > 2*captureStreamBytes || cap(r.rsp) > 4*captureStreamBytes || !bytes.HasSuffix(r.rsp, line) {
		t.Errorf("after more lines: %d bytes held in %d", len(r.rsp), cap(r.rsp))
	}
}

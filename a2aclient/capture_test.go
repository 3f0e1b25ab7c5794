package a2aclient

import (
	"fmt"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/a2aclient/edge"
	"a2atop/internal/sdktest"
)

// The raw capture of one agent holds at most edge.CaptureBytes however large
// its answers: big answers push old exchanges out, the newest stays.
func TestCaptureRingBoundedByBytes(t *testing.T) {
	skipUnderRace(t, "a bound in bytes")
	a := sdktest.Start(t, sdktest.JSONRPC, false, nil)
	id := a.Send(t, "big:300000")
	a.Stored(t, id, a2a.TaskStateInputRequired)
	m := New([]AgentOptions{fast("a", a.URL())}, Options{})
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
	if total > edge.CaptureBytes+edge.CaptureRequestBytes+edge.CaptureResponseBytes || len(got) >= 40 {
		t.Errorf("the capture holds %d exchanges, %d bytes; want at most about %d bytes", len(got), total, edge.CaptureBytes)
	}
	if last := got[len(got)-1]; last.RPC != "GetTask" || len(last.Response) < edge.CaptureResponseBytes {
		t.Errorf("the newest exchange is %s with %d response bytes", last.RPC, len(last.Response))
	}
}

// In a fleet the rings share captureFleetBytes: each agent of forty
// holds its share, not edge.CaptureBytes.
func TestCaptureRingsShareTheFleetsBytes(t *testing.T) {
	skipUnderRace(t, "a bound in bytes")
	a := sdktest.Start(t, sdktest.JSONRPC, false, nil)
	id := a.Send(t, "big:300000")
	a.Stored(t, id, a2a.TaskStateInputRequired)
	agents := []AgentOptions{fast("a", a.URL())}
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
	if share := edge.CaptureShare(40); share >= edge.CaptureBytes || total > share+edge.CaptureRequestBytes+edge.CaptureResponseBytes {
		t.Errorf("one agent of forty holds %d bytes of capture; want at most about its share, %d", total, share)
	}
}

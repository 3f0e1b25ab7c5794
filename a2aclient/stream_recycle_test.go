package a2aclient

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdk "github.com/a2aproject/a2a-go/v2/a2aclient"

	"a2atop/model"
)

// TestSDKStreamKeepsItsBuffers documents what stream_recycle.go works
// around: the SDK v2.4.0's SSE reader keeps the buffers it grew for a big
// event for as long as the stream stays open. The exact bytes of a real
// SDK stream whose first event holds a 4 MiB message are served by a
// server that then keeps the stream open with nothing more; the bare SDK
// client reading it holds several MiB more while it is open than once it
// is closed. It fails the day the reader lets them go: delete
// stream_recycle.go then.
func TestSDKStreamKeepsItsBuffers(t *testing.T) {
	a := startAgent(t, kindJSONRPC, true, nil)
	id := a.send(t, "bigwork:4194304")
	a.stored(t, id, a2a.TaskStateWorking)
	tee := &teeTransport{}
	rec := a.bare(t, tee)
	rctx, stop := context.WithCancel(t.Context())
	for _, err := range rec.SubscribeToTask(rctx, &a2a.SubscribeToTaskRequest{ID: id}) {
		if err != nil {
			t.Fatal(err)
		}
		break // the snapshot: its bytes are in tee
	}
	stop()
	a.exec.release()
	stream := bytes.Clone(tee.buf.Bytes())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(stream)
		w.(http.Flusher).Flush()
		<-r.Context().Done() // open, with nothing more to say
	}))
	defer srv.Close()
	card := *a.card
	card.SupportedInterfaces = []*a2a.AgentInterface{a2a.NewAgentInterface(srv.URL, a2a.TransportProtocolJSONRPC)}
	cl, err := sdk.NewFromCard(t.Context(), &card, sdk.WithJSONRPCTransport(&http.Client{}))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Destroy()
	base := liveHeap()
	ctx, cancel := context.WithCancel(t.Context())
	got, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		for _, err := range cl.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: id}) {
			if err != nil {
				return
			}
			close(got) // one event; the stream stays open
		}
	}()
	select {
	case <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("no event")
	}
	open := liveHeap()
	cancel()
	<-ended
	closed := liveHeap()
	t.Logf("heap: before %d KiB, stream open %d KiB, closed %d KiB", base>>10, open>>10, closed>>10)
	if held := int64(open) - int64(closed); held < 4<<20 {
		t.Fatalf("the open SDK stream held %d KiB more than the closed one; pinned: at least the 4 MiB event's buffers", held>>10)
	}
}

func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// A stream that delivers an event of more than recycleEventBytes is ended
// after it; the task is left to sweeps until its status changes, and its
// end arrives as usual.
func TestBigEventEndsTheStream(t *testing.T) {
	a := startAgent(t, kindJSONRPC, true, nil)
	m, c := runManager(t, []AgentOptions{fast("a", a.url())}, Options{})
	id := a.send(t, "bigwork:1048576")
	c.waitFor(t, "the big status, by stream", 10*time.Second, func(evs []model.Event) bool {
		for _, e := range evs {
			if e.Kind == model.EventTask && e.Task.ID == id && e.Source == model.SourceStream &&
				e.Task.Status.Message != nil && len(e.Task.Status.Message.Parts[0].Text()) == 1<<20 {
				return true
			}
		}
		return false
	})
	c.waitFor(t, "the stream ended", 10*time.Second, func([]model.Event) bool {
		n, streaming := streamsOf(m, "a", id)
		return n == 0 && !streaming
	})
	time.Sleep(200 * time.Millisecond) // sweeps go on; no stream is opened again
	if n, _ := streamsOf(m, "a", id); n != 0 {
		t.Errorf("%d streams open again on the task with the big status", n)
	}
	a.exec.release()
	c.waitFor(t, "completed", 10*time.Second, func(evs []model.Event) bool {
		return hasTask(evs, "a", id, a2a.TaskStateCompleted)
	})
	if h := lastHealth(c.snapshot(), "a"); h.Err != "" {
		t.Errorf("the agent's row says %q", h.Err)
	}
}

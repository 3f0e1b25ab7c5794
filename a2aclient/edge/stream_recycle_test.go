package edge

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdk "github.com/a2aproject/a2a-go/v2/a2aclient"

	"a2atop/internal/sdktest"
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
	a := sdktest.Start(t, sdktest.JSONRPC, true, nil)
	id := a.Send(t, "bigwork:4194304")
	a.Stored(t, id, a2a.TaskStateWorking)
	tee := &sdktest.SSETee{}
	rec := a.Bare(t, tee)
	rctx, stop := context.WithCancel(t.Context())
	for _, err := range rec.SubscribeToTask(rctx, &a2a.SubscribeToTaskRequest{ID: id}) {
		if err != nil {
			t.Fatal(err)
		}
		break // the snapshot: its bytes are in tee
	}
	stop()
	a.Exec.Release()
	stream := tee.Bytes()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(stream)
		w.(http.Flusher).Flush()
		<-r.Context().Done() // open, with nothing more to say
	}))
	defer srv.Close()
	card := *a.Card
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

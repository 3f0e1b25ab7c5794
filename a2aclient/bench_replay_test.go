package a2aclient

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdk "github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"a2atop/internal/sdktest"
	"a2atop/model"
)

// replayServer serves, for SubscribeToTask, the exact bytes a real SDK
// server streamed once, and proxies everything else to that server. It
// takes the server's own cost out of the measure, so the ratio shows the
// clients' cost alone.
func replayServer(b *testing.B, a *sdktest.Agent, stream []byte) string {
	target, _ := url.Parse(a.URL())
	proxy := httputil.NewSingleHostReverseProxy(target)
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			card := *a.Card
			card.SupportedInterfaces = []*a2a.AgentInterface{a2a.NewAgentInterface(srv.URL+"/invoke", a2a.TransportProtocolJSONRPC)}
			a2asrv.NewStaticAgentCardHandler(&card).ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if !bytes.Contains(body, []byte(`"SubscribeToTask"`)) {
			proxy.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		for p := stream; len(p) > 0; {
			n := min(len(p), 16<<10)
			w.Write(p[:n])
			w.(http.Flusher).Flush()
			p = p[n:]
		}
	}))
	b.Cleanup(srv.Close)
	return srv.URL
}

// recordStream runs one live chatty stream and returns its raw SSE bytes
// and task id.
func recordStream(b *testing.B, a *sdktest.Agent) ([]byte, a2a.TaskID) {
	tee := &sdktest.SSETee{}
	cl, err := sdk.NewFromCard(context.Background(), a.Card, sdk.WithJSONRPCTransport(&http.Client{Transport: tee}))
	if err != nil {
		b.Fatal(err)
	}
	id := a.Send(b, fmt.Sprintf("chatty:%d", ingestEvents))
	for ev, err := range cl.SubscribeToTask(context.Background(), &a2a.SubscribeToTaskRequest{ID: id}) {
		if err != nil {
			b.Fatal(err)
		}
		if _, ok := ev.(*a2a.Task); ok {
			a.Exec.Release()
		}
	}
	return tee.Bytes(), id
}

// replayIngest measures both clients on the replayed stream; it returns
// the two rates in events per second.
func replayIngest(b *testing.B, a *sdktest.Agent) (sdkRate, ourRate float64) {
	raw, id := recordStream(b, a)
	base := replayServer(b, a, raw)
	o := fast("r", base)
	m := New([]AgentOptions{o}, Options{})
	w := m.watchers["r"]
	if err := w.connect(context.Background()); err != nil {
		b.Fatal(err)
	}
	card := *a.Card
	card.SupportedInterfaces = []*a2a.AgentInterface{a2a.NewAgentInterface(base+"/invoke", a2a.TransportProtocolJSONRPC)}
	bare, err := sdk.NewFromCard(context.Background(), &card, sdk.WithJSONRPCTransport(&http.Client{}))
	if err != nil {
		b.Fatal(err)
	}
	var sdkRates, ourRates []float64
	for i := 0; i < 2*replayRounds; i++ {
		if i%4 == 0 || i%4 == 3 { // ABBA order: the machine is shared and noisy
			d, n := replayBare(b, bare, id)
			sdkRates = append(sdkRates, float64(n)/d.Seconds())
		} else {
			d, n := replayWatcher(m, w, id)
			ourRates = append(ourRates, float64(n)/d.Seconds())
		}
	}
	return median(sdkRates), median(ourRates)
}

const replayRounds = 40

func replayBare(b *testing.B, bare *sdk.Client, id a2a.TaskID) (time.Duration, int) {
	start, n := time.Now(), 0
	for ev, err := range bare.SubscribeToTask(context.Background(), &a2a.SubscribeToTaskRequest{ID: id}) {
		if err != nil {
			b.Fatal(err)
		}
		if _, ok := ev.(*a2a.TaskStatusUpdateEvent); ok {
			n++
		}
	}
	return time.Since(start), n
}

// replayWatcher runs the watcher's own stream path (the one ensureStreams
// starts) on the replayed stream and drains the model events like the UI.
func replayWatcher(m *Manager, w *watcher, id a2a.TaskID) (time.Duration, int) {
	start, n := time.Now(), 0
	w.mu.Lock()
	w.streams++
	w.mu.Unlock()
	w.wg.Add(1)
	go w.stream(context.Background(), id)
	var batch []model.Event
	for {
		batch = uiBatch(m.Events(), batch)
		for _, ev := range batch {
			if ev.Kind == model.EventStatus {
				n++
				if ev.Status.Status.State == a2a.TaskStateCompleted {
					d := ev.At.Sub(start) // when the watcher handed it over
					w.wg.Wait()
					return d, n
				}
			}
		}
	}
}

// uiBatch drains like the UI: wait a beat, then take everything waiting
// (the UI does this at most every ~30 ms; 2 ms here keeps a run's events
// well inside the channel). The clock uses model.Event.At, so the batch
// interval adds no latency to the figures.
func uiBatch(ch <-chan model.Event, buf []model.Event) []model.Event {
	buf = buf[:0]
	time.Sleep(2 * time.Millisecond)
	for {
		select {
		case ev := <-ch:
			buf = append(buf, ev)
		default:
			return buf
		}
	}
}

package push

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
)

// BenchmarkDeliver is one accepted delivery (a status update) through
// ServeHTTP: token lookup and compare, body read and decode, the sink.
func BenchmarkDeliver(b *testing.B) {
	r := New(Options{PublicURL: "http://x", Agents: []string{"a"}, Sink: &sink{health: map[string]model.PushHealth{}}})
	_, tok, _ := r.Issue("a", "t1")
	body := status("t1", a2a.TaskStateWorking)
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "http://x"+Path+"a", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tok)
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatal(w.Code)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "deliveries/s")
}

// BenchmarkRefuse is one forged POST (a token never issued): refused
// before the body is read.
func BenchmarkRefuse(b *testing.B) {
	r := New(Options{PublicURL: "http://x", Agents: []string{"a"}, Sink: &sink{health: map[string]model.PushHealth{}}})
	body := bytes.Repeat([]byte("x"), 1<<20)
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "http://x"+Path+"a", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer forged")
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "refusals/s")
}

package sdktest

import (
	"net/http"
	"strings"
	"sync"
)

// RequestLog is a RoundTripper over net/http's default that keeps every
// request it sends.
type RequestLog struct {
	mu   sync.Mutex
	reqs []*http.Request
}

// RoundTrip keeps r and sends it.
func (l *RequestLog) RoundTrip(r *http.Request) (*http.Response, error) {
	l.mu.Lock()
	l.reqs = append(l.reqs, r.Clone(r.Context()))
	l.mu.Unlock()
	return http.DefaultTransport.RoundTrip(r)
}

// Last returns the last request whose URL path ends in suffix.
func (l *RequestLog) Last(suffix string) *http.Request {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := len(l.reqs) - 1; i >= 0; i-- {
		if strings.HasSuffix(l.reqs[i].URL.Path, suffix) {
			return l.reqs[i]
		}
	}
	return nil
}

package a2aclient

import (
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	"a2atop/model"
)

// Capture limits: how much of each body the raw view keeps.
const (
	captureRequestBytes  = 16 << 10
	captureResponseBytes = 64 << 10
)

// record is one exchange being captured. It is filled while the response
// streams in, so it has its own lock.
type record struct {
	mu  sync.Mutex
	ex  model.Exchange
	req []byte
	rsp []byte // head of a unary body, or the tail of an SSE stream
	cut bool   // rsp lost bytes at its start (SSE tail) or end (unary head)
}

func (r *record) appendResponse(p []byte, tail bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !tail {
		room := captureResponseBytes - len(r.rsp)
		if room <= 0 {
			r.cut = true
			return
		}
		if len(p) > room {
			p, r.cut = p[:room], true
		}
		r.rsp = append(r.rsp, p...)
		return
	}
	r.rsp = append(r.rsp, p...)
	if len(r.rsp) > 2*captureResponseBytes {
		n := copy(r.rsp, r.rsp[len(r.rsp)-captureResponseBytes:])
		r.rsp, r.cut = r.rsp[:n], true
	}
}

// ring keeps the last n records of one agent. Safe for concurrent use.
type ring struct {
	mu   sync.Mutex
	n    int
	recs []*record
	next int
}

func newRing(n int) *ring { return &ring{n: n} }

func (g *ring) add(r *record) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.recs) < g.n {
		g.recs = append(g.recs, r)
		return
	}
	g.recs[g.next] = r
	g.next = (g.next + 1) % g.n
}

// snapshot returns the records, oldest first, redacted with red.
func (g *ring) snapshot(red *redactor) []model.Exchange {
	g.mu.Lock()
	recs := make([]*record, 0, len(g.recs))
	recs = append(recs, g.recs[g.next:]...)
	recs = append(recs, g.recs[:g.next]...)
	g.mu.Unlock()
	out := make([]model.Exchange, 0, len(recs))
	for _, r := range recs {
		r.mu.Lock()
		ex := r.ex
		ex.Request = red.text(string(r.req))
		rsp := string(r.rsp)
		if r.cut && len(rsp) > 0 {
			rsp = "…" + rsp
		}
		ex.Response = red.text(rsp)
		r.mu.Unlock()
		ex.URL = red.text(ex.URL)
		ex.Err = red.text(ex.Err)
		out = append(out, ex)
	}
	return out
}

// redactor removes secrets from captured text: every configured header
// value (and the token after "Bearer "), and partial secrets cut at the
// text's edges.
type redactor struct {
	secrets []string
	names   map[string]bool // lower-case header names that always hide their value
}

const redacted = "[redacted]"

func newRedactor(headers []Header) *redactor {
	r := &redactor{names: map[string]bool{
		"authorization": true, "proxy-authorization": true, "cookie": true,
		"set-cookie": true, "x-api-key": true, "api-key": true,
	}}
	for _, h := range headers {
		r.names[strings.ToLower(h.Name)] = true
		if h.Value == "" {
			continue
		}
		r.secrets = append(r.secrets, h.Value)
		if _, tok, ok := strings.Cut(h.Value, " "); ok && len(tok) >= 4 {
			r.secrets = append(r.secrets, tok)
		}
	}
	return r
}

// header renders one header line for the capture.
func (r *redactor) header(name, value string) string {
	if r.names[strings.ToLower(name)] {
		return name + ": " + redacted
	}
	for _, s := range r.secrets {
		if value == s {
			return name + ": " + redacted
		}
	}
	return name + ": " + value
}

// secretQuery matches the value of a query parameter whose name says it
// holds a secret (api_key, token, sig, ...), in a URL or form text;
// pageToken and other names that merely end in one are left alone.
var secretQuery = regexp.MustCompile(`(?i)([?&](?:api[_-]?key|apikey|x-api-key|key|token|access[_-]?token|id[_-]?token|auth|authorization|sig|signature|x-amz-signature|secret|client[_-]?secret|password|passwd|code)=)[^&#\s"'<>]+`)

// redactQuery replaces the values of secret-looking query parameters.
func redactQuery(s string) string {
	if !strings.ContainsAny(s, "?&") {
		return s
	}
	return secretQuery.ReplaceAllString(s, "${1}"+redacted)
}

// text replaces every secret in s, and the values of secret-looking query
// parameters. Partial secrets at the ends (left by truncation) are
// replaced too.
func (r *redactor) text(s string) string {
	s = redactQuery(s)
	for _, sec := range r.secrets {
		s = strings.ReplaceAll(s, sec, redacted)
		for k := len(sec) - 1; k >= 4; k-- {
			if strings.HasSuffix(s, sec[:k]) {
				s = s[:len(s)-k] + redacted
				break
			}
		}
		for k := len(sec) - 1; k >= 4; k-- {
			if strings.HasPrefix(s, sec[len(sec)-k:]) {
				s = redacted + s[k:]
				break
			}
		}
	}
	return s
}

// rpcName guesses the A2A operation from an HTTP request, for the raw view.
func rpcName(method, path, body string) string {
	if i := strings.Index(body, `"method":"`); i >= 0 {
		rest := body[i+len(`"method":"`):]
		if j := strings.IndexByte(rest, '"'); j >= 0 {
			return rest[:j]
		}
	}
	switch {
	case strings.HasSuffix(path, "/tasks") && method == "GET":
		return "ListTasks"
	case strings.HasSuffix(path, ":subscribe"):
		return "SubscribeToTask"
	case strings.HasSuffix(path, ":cancel"):
		return "CancelTask"
	case strings.HasSuffix(path, "/message:send"):
		return "SendMessage"
	case strings.HasSuffix(path, "/message:stream"):
		return "SendStreamingMessage"
	case strings.Contains(path, "/tasks/") && method == "GET":
		return "GetTask"
	case strings.HasSuffix(path, "agent-card.json"):
		return "card"
	}
	return ""
}

// newExchange starts the capture of one HTTP request.
func newExchange(req *http.Request) model.Exchange {
	return model.Exchange{At: time.Now(), Method: req.Method, URL: req.URL.String()}
}

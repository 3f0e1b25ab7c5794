package edge

import (
	"strings"
	"sync"

	"a2atop/a2aclient/credential"
)

// Redactor removes secrets from captured text: every configured header
// value (and the token after "Bearer "), and partial secrets cut at the
// text's edges.
// Tokens a credential fetches while running are learned as they are
// used (the newest maxLearned of them). Safe for concurrent use.
type Redactor struct {
	mu      sync.RWMutex
	secrets []string
	learned []string        // tokens learned from credentials, newest last
	names   map[string]bool // lower-case header names that always hide their value
}

// maxLearned is how many learned tokens the redactor keeps.
const maxLearned = 32

// Learn adds a secret header value (and its token after "Bearer ") to
// what is redacted.
func (r *Redactor) Learn(value string) {
	if len(value) < 4 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.learned {
		if s == value {
			return
		}
	}
	r.learned = append(r.learned, value)
	if _, tok, ok := strings.Cut(value, " "); ok && len(tok) >= 4 {
		r.learned = append(r.learned, tok)
	}
	if n := len(r.learned); n > maxLearned {
		r.learned = append([]string(nil), r.learned[n-maxLearned:]...)
	}
}

// all returns every secret to redact.
func (r *Redactor) all() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if len(r.learned) == 0 {
		return r.secrets
	}
	return append(append([]string(nil), r.secrets...), r.learned...)
}

const redacted = credential.Redacted

// NewRedactor hides the values of headers, and the headers that always
// carry secrets (Authorization, cookies, API keys).
func NewRedactor(headers []credential.Header) *Redactor {
	r := &Redactor{names: map[string]bool{
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

// HideHeader makes the values of header name (a credential's) always
// hidden.
func (r *Redactor) HideHeader(name string) { r.names[strings.ToLower(name)] = true }

// header renders one header line for the capture.
func (r *Redactor) header(name, value string) string {
	if r.names[strings.ToLower(name)] {
		return name + ": " + redacted
	}
	for _, s := range r.all() {
		if value == s {
			return name + ": " + redacted
		}
	}
	return name + ": " + value
}

// Text replaces every secret in s, and the values of secret-looking query
// parameters. Partial secrets at the ends (left by truncation) are
// replaced too.
func (r *Redactor) Text(s string) string {
	s = redactPushSecrets(credential.RedactQuery(s))
	for _, sec := range r.all() {
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

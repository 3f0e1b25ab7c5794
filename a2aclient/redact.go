package a2aclient

import (
	"regexp"
	"strings"
)

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

package credential

import (
	"regexp"
	"strings"
)

// How a URL stands in the words of an error: cut to a readable length,
// and without the values of its secret-looking query parameters.

// ShownURL is raw for an error message, cut to a reasonable length.
func ShownURL(raw string) string {
	if len(raw) > 200 {
		return raw[:200] + "…"
	}
	return raw
}

// Redacted stands in the words where a secret was.
const Redacted = "[redacted]"

// secretQuery matches the value of a query parameter whose name says it
// holds a secret (api_key, token, sig, ...), in a URL or form text;
// pageToken and other names that merely end in one are left alone.
var secretQuery = regexp.MustCompile(`(?i)([?&](?:api[_-]?key|apikey|x-api-key|key|token|access[_-]?token|id[_-]?token|auth|authorization|sig|signature|x-amz-signature|secret|client[_-]?secret|password|passwd|code)=)[^&#\s"'<>]+`)

// RedactQuery replaces the values of secret-looking query parameters.
func RedactQuery(s string) string {
	if !strings.ContainsAny(s, "?&") {
		return s
	}
	return secretQuery.ReplaceAllString(s, "${1}"+Redacted)
}

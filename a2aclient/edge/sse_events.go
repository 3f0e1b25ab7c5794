package edge

import (
	"bytes"
	"net/http"
	"strings"
)

// sseEvents finds where SSE events end in a stream read in pieces: at a
// line that is empty (or only "\r") and follows a newline. The zero value
// is at the start of a stream.
type sseEvents struct {
	lastNL bool // the last byte seen ended a line
}

// next returns the bytes of p that belong to the current event (the
// blank line that ends it left out) and, when the event ends within p,
// ended and the bytes of p after that blank line.
func (s *sseEvents) next(p []byte) (event, rest []byte, ended bool) {
	for off := 0; off < len(p); {
		i := bytes.IndexByte(p[off:], '\n')
		if i < 0 {
			s.lastNL = false
			return p, nil, false
		}
		blank := i == 0 || i == 1 && p[off] == '\r'
		if blank && s.lastNL {
			return p[:off], p[off+i+1:], true
		}
		s.lastNL = true
		off += i + 1
	}
	return p, nil, false
}

// isSSE reports whether resp is an SSE stream.
func isSSE(resp *http.Response) bool {
	return strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")
}

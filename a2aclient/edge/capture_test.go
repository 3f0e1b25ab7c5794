package edge

import (
	"bytes"
	"strings"
	"testing"
)

// An open stream's capture keeps the tail of what it sent, at most twice
// captureStreamBytes, in a buffer no bigger however big an event was: a
// fleet holds one per open stream.
func TestCaptureStreamTailBounded(t *testing.T) {
	var r record
	line := []byte(strings.Repeat("x", 999) + "\n")
	for range 100 {
		r.appendResponse(line, true)
	}
	big := append(bytes.Repeat([]byte("b"), 4<<20), "end\n"...)
	r.appendResponse(big, true)
	if len(r.rsp) > 2*captureStreamBytes || cap(r.rsp) > 2*captureStreamBytes || !bytes.HasSuffix(r.rsp, []byte("bend\n")) || !r.cut {
		t.Fatalf("after a 4 MiB event: %d bytes held in %d, cut %v", len(r.rsp), cap(r.rsp), r.cut)
	}
	for range 100 {
		r.appendResponse(line, true)
	}
	if len(r.rsp) > 2*captureStreamBytes || cap(r.rsp) > 4*captureStreamBytes || !bytes.HasSuffix(r.rsp, line) {
		t.Errorf("after more lines: %d bytes held in %d", len(r.rsp), cap(r.rsp))
	}
}

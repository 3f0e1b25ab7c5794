package edge

import "testing"

// FuzzSSEAccounting: however the stream is cut into reads, the largest
// event the RoundTripper measures matches a direct count.
func FuzzSSEAccounting(f *testing.F) {
	f.Add([]byte("data: {\"a\":1}\n\ndata: x\r\n\r\n: keep-alive\n\n"), uint8(3))
	f.Add([]byte("id: 1\ndata: abc\n\n\n\ndata: defgh\n\n"), uint8(1))
	f.Fuzz(func(t *testing.T, stream []byte, step uint8) {
		want := maxEvent(stream)
		b := &limitedBody{max: 1 << 30, sse: true}
		largest := int64(0)
		chunk := int(step%16) + 1
		for p := stream; len(p) > 0; {
			n := min(chunk, len(p))
			for i := 0; i < n; i++ { // byte-wise peek of the running size
				if err := b.account(p[i : i+1]); err != nil {
					t.Fatal(err)
				}
				largest = max(largest, b.n)
			}
			p = p[n:]
		}
		if largest != want {
			t.Fatalf("largest event %d, want %d", largest, want)
		}
	})
}

// maxEvent is the reference: the longest run of bytes between blank lines.
func maxEvent(s []byte) int64 {
	var best, cur int64
	lastNL := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		cur++
		if c == '\n' {
			// a line that is empty (or only "\r") after a newline ends the event
			lineStart := i
			for lineStart > 0 && s[lineStart-1] != '\n' {
				lineStart--
			}
			line := s[lineStart:i]
			if lastNL && (len(line) == 0 || string(line) == "\r") {
				cur = 0
			}
			lastNL = true
		} else {
			lastNL = false
		}
		best = max(best, cur)
	}
	return best
}

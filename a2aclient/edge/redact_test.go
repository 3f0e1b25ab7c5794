package edge

import (
	"testing"

	"a2atop/a2aclient/credential"
)

func TestRedactor(t *testing.T) {
	r := NewRedactor([]credential.Header{{Name: "X-Key", Value: "k-1234567890"}, {Name: "Authorization", Value: "Bearer tok-abcdefgh"}})
	for _, tc := range []struct{ in, want string }{
		{"echo k-1234567890 back", "echo [redacted] back"},
		{"token tok-abcdefgh in body", "token [redacted] in body"},
		{"cut at the end k-12345", "cut at the end [redacted]"},
		{"67890 cut at the start", "[redacted] cut at the start"},
		{"nothing secret", "nothing secret"},
		{"GET http://h/card?api_key=zz9&x=1", "GET http://h/card?api_key=[redacted]&x=1"},
		{`"http://h/?a=1&token=zz9" and &SIG=zz9#f`, `"http://h/?a=1&token=[redacted]" and &SIG=[redacted]#f`},
		{"GET /tasks?pageSize=100&pageToken=abc", "GET /tasks?pageSize=100&pageToken=abc"},
	} {
		if got := r.Text(tc.in); got != tc.want {
			t.Errorf("text(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := r.header("x-key", "k-1234567890"); got != "x-key: [redacted]" {
		t.Errorf("header = %q", got)
	}
	if got := r.header("X-Other", "Bearer tok-abcdefgh"); got != "X-Other: [redacted]" {
		t.Errorf("a configured secret under another name = %q", got)
	}
	if got := r.header("Accept", "text/event-stream"); got != "Accept: text/event-stream" {
		t.Errorf("header = %q", got)
	}
}

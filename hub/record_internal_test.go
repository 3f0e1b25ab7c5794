package hub

import (
	"errors"
	"fmt"
	"testing"

	"a2atop/approvals"
)

// TestRecordWhy: the words a dashboard's banner gives after its own put
// the cause before the servers (a banner cut at its end keeps the
// cause), and drop what the banner says already.
func TestRecordWhy(t *testing.T) {
	const where = "nats://127.0.0.1:4222, nats://127.0.0.1:4223 stream A2ATOP_JOURNAL"
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"the store's words", fmt.Errorf("%w (%s: %s)", approvals.ErrRecordUnreachable, where, "no server answered within 2s"),
			"no server answered within 2s (" + where + ")"},
		{"without the servers", fmt.Errorf("%w (the stream has no leader)", approvals.ErrRecordUnreachable), "the stream has no leader"},
		{"another error", errors.New("nats: connection closed"), "nats: connection closed"},
		{"no words", approvals.ErrRecordUnreachable, "no reason given"},
	} {
		if got := recordWhy(c.err, where); got != c.want {
			t.Errorf("%s: recordWhy = %q, want %q", c.name, got, c.want)
		}
	}
}

package hub_test

import (
	"log/slog"
	"os"
	"testing"
)

// TestMain sends what the SDK's servers log to slog.Default (a stream the
// watchers closed) nowhere: the tests read the hub's own log.
func TestMain(m *testing.M) {
	slog.SetDefault(slog.New(slog.DiscardHandler))
	os.Exit(m.Run())
}

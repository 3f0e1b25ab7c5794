package cli

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

// TestDemoSaysItsJournalIsTemporary runs `a2atop demo` through a pipe:
// the journal view says that the demo's journal is a temporary file.
func TestDemoSaysItsJournalIsTemporary(t *testing.T) {
	isolate(t)
	t.Setenv("NO_COLOR", "1")
	in, keys := io.Pipe()
	var out, errOut syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(context.Background(), []string{"demo", "--pace", "1h"}, Streams{In: in, Out: &out, Err: &errOut})
	}()
	if _, err := keys.Write([]byte("4")); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(20 * time.Second)
	for !strings.Contains(out.String(), "temporary: the demo's own journal, deleted when the demo exits") {
		select {
		case <-deadline:
			t.Fatalf("the journal view never said the demo's journal is temporary:\n%s\nstderr: %s", out.String(), errOut.String())
		case code := <-done:
			t.Fatalf("demo ended early with %d: %s", code, errOut.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	if _, err := keys.Write([]byte("1q")); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != exitOK {
			t.Errorf("demo = %d, stderr %q", code, errOut.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("demo did not quit on q")
	}
	keys.Close()
}

package interop

import (
	"os"
	"testing"
)

// strictEnv, when "1", turns known gaps into failures.
const strictEnv = "A2ATOP_INTEROP_STRICT"

// knownGap skips the rest of a test when its symptom (present) is exactly
// a gap already reported to the owning package, naming it, so the suite
// stays green while the gap is open and starts asserting the moment it is
// closed. With A2ATOP_INTEROP_STRICT=1 a gap fails the test instead.
func knownGap(t *testing.T, present bool, gap string) {
	t.Helper()
	if !present {
		return
	}
	if os.Getenv(strictEnv) == "1" {
		t.Fatalf("known gap: %s", gap)
	}
	t.Skipf("known gap (set %s=1 to fail): %s", strictEnv, gap)
}

// gapRESTErrors: the JS SDK sends REST errors as application/a2a+json
// (spec §11.1); the Go SDK v2.4.0 REST client parses error bodies only for
// application/json and returns ErrServerError, and a2aclient passes that
// on, so TaskNotFound/TaskNotCancelable over REST lose their meaning.
const gapRESTErrors = "a2aclient: REST error bodies served as application/a2a+json (JS SDK) are not classified; " +
	"the SDK returns ErrServerError. Fix: in the RoundTripper, parse google.rpc.Status ErrorInfo.reason (or present the body as application/json)"

// gapGoNoActiveExecution: Go SDK servers answer SubscribeToTask on an
// INPUT_REQUIRED/AUTH_REQUIRED task with -32001 "no active execution",
// which is the TaskNotFound code; a2aclient recovers (GetTask, then sweeps)
// but also shows "task not found: it may have expired" as the agent's
// health error, although the task is there.
const gapGoNoActiveExecution = "a2aclient: a Go server's -32001 on SubscribeToTask for an interrupted task shows as a health error " +
	"\"task not found\" although GetTask then finds the task; treat it as \"no active execution\" and stay quiet"

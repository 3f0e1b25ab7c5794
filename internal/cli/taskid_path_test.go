package cli

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/demo"
	"a2atop/internal/agenttest"
	"a2atop/model"
)

// TestReplyTaskIDIsOnePathSegment: `a2atop reply` on an HTTP+JSON agent
// with a task whose id looks like a path reaches exactly the A2A routes,
// the id one segment of them, and answers the task; an id it cannot send
// is refused in words (exit 2) before anything reaches the agent.
func TestReplyTaskIDIsOnePathSegment(t *testing.T) {
	dir := isolate(t)
	ra := agenttest.StartRESTAgent(t)
	const hostile = a2a.TaskID("../../secret-admin?delete=all")
	ra.Waiting(t, hostile)
	cfg := writeConfig(t, dir, []demo.Agent{{Name: "rest", URL: ra.URL}})
	ctx := context.Background()

	code, out, errOut := runCmd(ctx, "reply", "--config", cfg, "rest", string(hostile), "--text", "main")
	hits, stray := ra.Seen()
	t.Logf("reply: %d\n%s%s\non the wire: %q", code, out, errOut, hits)
	if code != exitOK || !strings.Contains(out, "reply → rest") {
		t.Errorf("reply on %q: %d\n%s%s", hostile, code, out, errOut)
	}
	if !slices.Contains(hits, "GET /rest/tasks/..%2F..%2Fsecret-admin%3Fdelete%3Dall") || !slices.Contains(hits, "POST /rest/message:send") {
		t.Errorf("the reply's requests: %q; want GetTask and SendMessage on the task", hits)
	}
	if len(stray) > 0 {
		t.Errorf("requests outside the A2A routes: %q", stray)
	}

	for id, why := range map[string]string{"a\x1b]0;owned\x07": "holds a control character", strings.Repeat("x", model.MaxIDBytes+1): "is longer than", "..": "is a dot segment"} {
		before, _ := ra.Seen()
		code, out, errOut := runCmd(ctx, "reply", "--config", cfg, "rest", id, "--text", "main")
		after, _ := ra.Seen()
		if code != exitUsage || !strings.Contains(errOut, "TASK: task id ") || !strings.Contains(errOut, why) || len(after) != len(before) {
			t.Errorf("reply on %s: %d %s%s, %d requests; want exit 2 saying it %s, none sent", model.QuoteID(id), code, out, errOut, len(after)-len(before), why)
		}
		if strings.Contains(errOut, "\x1b") {
			t.Errorf("the refusal prints the control character raw: %q", errOut)
		}
	}
}

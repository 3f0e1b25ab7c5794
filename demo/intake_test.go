package demo

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

func TestCodeReviewerAsksThenCompletesOnTheSameTask(t *testing.T) {
	f := startFleet(t, Options{NoPlanner: true})
	c := sdkClient(t, f, CodeReviewer)
	task := send(t, c, "review PR #42", false)
	if task.Status.State != a2a.TaskStateInputRequired || statusText(task) != BranchQuestion {
		t.Fatalf("got %s %q, want INPUT_REQUIRED %q", task.Status.State, statusText(task), BranchQuestion)
	}
	_, res, err := reply(testCtx(t), c, task, false, a2a.NewTextPart("compare against main"))
	if err != nil {
		t.Fatalf("answer on the same taskId: %v", err)
	}
	done := res.(*a2a.Task)
	if done.ID != task.ID || done.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("after answer: %s %s, want %s COMPLETED", done.ID, done.Status.State, task.ID)
	}
	review := findArtifact(done, "review")
	if review == nil || !strings.Contains(review.Parts[0].Text(), "PR #42 against main") {
		t.Fatalf("review artifact = %+v, want one naming PR #42 and main", review)
	}
}

func TestCodeReviewerCardOffersOnlyHTTPJSON(t *testing.T) {
	f := startFleet(t, Options{NoPlanner: true})
	card := fetchJSON(t, agentURL(t, f, CodeReviewer)+"/.well-known/agent-card.json")
	ifaces, _ := card["supportedInterfaces"].([]any)
	if len(ifaces) != 1 || ifaces[0].(map[string]any)["protocolBinding"] != "HTTP+JSON" {
		t.Fatalf("supportedInterfaces = %v, want one HTTP+JSON interface", ifaces)
	}
}

func fetchJSON(t *testing.T, url string) map[string]any {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = res.Body.Close() }()
	var out map[string]any
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		t.Fatalf("decode %s: %v", url, err)
	}
	return out
}

// rpc03 posts one raw A2A 0.3 JSON-RPC call and returns the result object.
func rpc03(t *testing.T, url, method string, params map[string]any) map[string]any {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "1", "method": method, "params": params})
	res, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = res.Body.Close() }()
	raw, _ := io.ReadAll(res.Body)
	var out struct {
		Result map[string]any `json:"result"`
		Error  any            `json:"error"`
	}
	if err := json.Unmarshal(raw, &out); err != nil || out.Error != nil || out.Result == nil {
		t.Fatalf("%s: %s (err %v)", method, raw, err)
	}
	return out.Result
}

func TestLegacyIntakeSpeaksA2A03OnTheWire(t *testing.T) {
	f := startFleet(t, Options{NoPlanner: true})
	url := agentURL(t, f, LegacyIntake)
	card := fetchJSON(t, url+"/.well-known/agent-card.json")
	if card["protocolVersion"] != "0.3" || card["url"] != url || card["preferredTransport"] != "JSONRPC" {
		t.Fatalf("card = %v, want a 0.3 card (protocolVersion, url, preferredTransport)", card)
	}
	first := rpc03(t, url, "message/send", map[string]any{"message": map[string]any{
		"kind": "message", "messageId": "m-1", "role": "user",
		"parts": []any{map[string]any{"kind": "text", "text": "sign up Ada Lovelace for the beta"}}}})
	st, _ := first["status"].(map[string]any)
	if first["kind"] != "task" || st["state"] != "input-required" {
		t.Fatalf("result = %v, want kind task in state input-required", first)
	}
	q, _ := st["message"].(map[string]any)
	if parts, _ := q["parts"].([]any); len(parts) == 0 || parts[0].(map[string]any)["kind"] != "text" ||
		parts[0].(map[string]any)["text"] != EmailQuestion {
		t.Fatalf("question = %v, want a 0.3 text part asking %q", q, EmailQuestion)
	}
	done := rpc03(t, url, "message/send", map[string]any{"message": map[string]any{
		"kind": "message", "messageId": "m-2", "role": "user", "taskId": first["id"], "contextId": first["contextId"],
		"parts": []any{map[string]any{"kind": "text", "text": "ada@example.org"}}}})
	st, _ = done["status"].(map[string]any)
	if done["id"] != first["id"] || st["state"] != "completed" {
		t.Fatalf("after the email: %v, want the same task completed", done)
	}
	arts, _ := done["artifacts"].([]any)
	if len(arts) != 1 || arts[0].(map[string]any)["parts"].([]any)[0].(map[string]any)["kind"] != "data" {
		t.Fatalf("artifacts = %v, want account.json as a 0.3 data part", arts)
	}
}

func TestLegacyIntakeThroughTheSDKCompatClient(t *testing.T) {
	f := startFleet(t, Options{NoPlanner: true})
	c := sdkClient(t, f, LegacyIntake)
	task := send(t, c, "sign up Grace Hopper for the beta", false)
	if task.Status.State != a2a.TaskStateInputRequired {
		t.Fatalf("state = %s, want INPUT_REQUIRED", task.Status.State)
	}
	_, res, err := reply(testCtx(t), c, task, false, a2a.NewTextPart("not an address"))
	if err != nil || res.(*a2a.Task).Status.State != a2a.TaskStateInputRequired {
		t.Fatalf("bad address: %v %v, want INPUT_REQUIRED again", res, err)
	}
	_, res, err = reply(testCtx(t), c, task, false, a2a.NewTextPart("use grace@example.org please"))
	if err != nil || res.(*a2a.Task).Status.State != a2a.TaskStateCompleted {
		t.Fatalf("good address: %v %v, want COMPLETED", res, err)
	}
	if _, err := c.ListTasks(testCtx(t), &a2a.ListTasksRequest{}); err == nil {
		t.Fatal("ListTasks over 0.3 JSON-RPC succeeded; 0.3 has no such method")
	}
}

package approvals

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/a2aclient/a2aerr"
)

func TestBuildReply(t *testing.T) {
	task := &a2a.Task{ID: "t1", ContextID: "c1"}
	for _, tc := range []struct {
		name, text, json string
		wantParts        int
		wantErr          error
		wantIn           string
	}{
		{"text", "main", "", 1, nil, ""},
		{"data", "", `{"branch":"main"}`, 1, nil, ""},
		{"both", "see data", `[1,2]`, 2, nil, ""},
		{"empty", "  ", "", 0, ErrEmptyReply, ""},
		{"bad json", "", "{\"a\": 1,\n \"b\": }", 0, ErrInvalidJSON, "line 2, column"},
		{"cut json", "", `{"a": [1, 2`, 0, ErrInvalidJSON, "ends too early"},
		{"two values", "", `{"a":1} {"b":2}`, 0, ErrInvalidJSON, "wrap several values"},
		{"trailing brace", "", `{"a":1}}`, 0, ErrInvalidJSON, "line 1, column 8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := BuildReply(task, tc.text, tc.json, "m1")
			if !errors.Is(err, tc.wantErr) || tc.wantErr == nil && err != nil {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if err != nil {
				if !strings.Contains(err.Error(), tc.wantIn) {
					t.Fatalf("err %q does not say %q", err, tc.wantIn)
				}
				return
			}
			if len(m.Parts) != tc.wantParts || m.TaskID != "t1" || m.ContextID != "c1" || m.ID != "m1" || m.Role != a2a.MessageRoleUser {
				t.Fatalf("message = %+v", m)
			}
		})
	}
}

func TestTemplates(t *testing.T) {
	at := time.Date(2026, 11, 29, 20, 1, 2, 0, time.UTC)
	task := &a2a.Task{ID: "t1", ContextID: "c1"}
	deny := DecisionValues{Reason: `too "risky"`, Approver: "ops@host", At: at}
	approve := DecisionValues{Approve: true, Approver: "ops@host", At: at}
	for _, tc := range []struct {
		name     string
		tpl      Template
		v        DecisionValues
		wantText string
		wantData string
		wantErr  string
	}{
		{"default approve", Template{}, approve, "approved", `{"approver":"ops@host","at":"2026-11-29T20:01:02Z","decision":"approve","reason":""}`, ""},
		{"default deny", Template{}, deny, `denied: too "risky"`, `{"approver":"ops@host","at":"2026-11-29T20:01:02Z","decision":"deny","reason":"too \"risky\""}`, ""},
		{"custom", Template{DenyText: "no ({{approver}}): {{reason}}", Data: `{"ok": {{approved}}, "why": {{ reason }}, "v": 2}`}, deny,
			`no (ops@host): too "risky"`, `{"ok":false,"v":2,"why":"too \"risky\""}`, ""},
		{"text only", Template{NoData: true}, approve, "approved", "", ""},
		{"quoted placeholder", Template{Data: `{"why": "{{reason}}"}`}, deny, "", "", "never inside quotes"},
		{"unknown placeholder", Template{Data: `{"x": {{who}}}`}, deny, "", "", "unknown placeholder {{who}}"},
		{"not json", Template{Data: `{"x": {{reason}}`}, deny, "", "", "not valid JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.tpl.Validate()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) && !strings.Contains(err.Error(), "not \"{{reason}}\"") {
					t.Fatalf("Validate = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			m, err := BuildDecision(task, tc.v, tc.tpl, "m1")
			if err != nil {
				t.Fatal(err)
			}
			if got := m.Parts[0].Text(); got != tc.wantText {
				t.Fatalf("text = %q, want %q", got, tc.wantText)
			}
			if tc.wantData == "" {
				if len(m.Parts) != 1 {
					t.Fatalf("parts = %d", len(m.Parts))
				}
				return
			}
			if got := compactJSON(m.Parts[1].Data()); got != tc.wantData {
				t.Fatalf("data = %s, want %s", got, tc.wantData)
			}
		})
	}
}

func compactJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestBuildFollowUpAndPromptOf(t *testing.T) {
	ended := &a2a.Task{ID: "t1", ContextID: "c1"}
	parts := []*a2a.Part{a2a.NewTextPart("main")}
	m := BuildFollowUp(ended, parts, "m2")
	if m.TaskID != "" || m.ContextID != "c1" || len(m.ReferenceTasks) != 1 || m.ReferenceTasks[0] != "t1" || m.Parts[0] == parts[0] {
		t.Fatalf("follow-up = %+v", m)
	}
	ts := time.Date(2026, 11, 29, 20, 0, 0, 5, time.FixedZone("x", 3600))
	for _, tc := range []struct {
		st   a2a.TaskStatus
		want string
	}{
		{a2a.TaskStatus{State: a2a.TaskStateInputRequired, Timestamp: &ts}, "2026-11-29T19:00:00.000000005Z"},
		{a2a.TaskStatus{State: a2a.TaskStateInputRequired, Message: &a2a.Message{ID: "q1"}}, "message:q1"},
		{a2a.TaskStatus{State: a2a.TaskStateAuthRequired}, "state:TASK_STATE_AUTH_REQUIRED"},
	} {
		if got := PromptOf(&a2a.Task{Status: tc.st}); got != tc.want {
			t.Errorf("PromptOf = %q, want %q", got, tc.want)
		}
	}
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		name  string
		err   error
		state a2a.TaskState
		want  Problem
	}{
		{"not found", &sentErr{err: a2a.ErrTaskNotFound, code: -32001}, "", ProblemNotFound},
		{"unsupported", &sentErr{err: a2a.ErrUnsupportedOperation, code: -32004}, "", ProblemTaskEnded},
		{"go terminal", &sentErr{err: a2a.NewError(a2a.ErrInvalidParams, "task in a terminal state \"TASK_STATE_CANCELED\": invalid params"), code: -32602}, "", ProblemTaskEnded},
		{"in progress auth", &sentErr{err: a2a.NewError(a2a.ErrInternalError, "task execution is already in progress"), code: -32603}, a2a.TaskStateAuthRequired, ProblemOutOfBand},
		{"in progress input", &sentErr{err: a2a.NewError(a2a.ErrInternalError, "task execution is already in progress"), code: -32603}, a2a.TaskStateInputRequired, ProblemRejected},
		{"401", &sentErr{err: errors.New("unexpected HTTP status: 401 Unauthorized"), status: 401}, "", ProblemUnauthorized},
		{"403 rpc", &sentErr{err: a2a.ErrUnauthorized, code: -31403}, "", ProblemUnauthorized},
		{"sentinel only", a2a.ErrTaskNotFound, "", ProblemNotFound},
		{"timeout", &sentErr{err: context.DeadlineExceeded}, "", ProblemTimeout},
		{"refused", &sentErr{err: syscall.ECONNREFUSED}, "", ProblemUnreachable},
		{"reset", errors.New("connection reset by peer"), "", ProblemNoAnswer},
		// The shared vocabulary's classes: a refusal to send from a
		// read-only agent is read-only, whoever made it; an answer the
		// agent began but did not finish leaves the outcome unknown.
		{"agent read-only", &sentErr{err: fmt.Errorf("agent %q: %w", "a", a2aerr.ErrReadOnly)}, "", ProblemReadOnly},
		{"timeout after the headers", &sentErr{err: fmt.Errorf("failed to decode response: %w", context.DeadlineExceeded), status: 200}, "", ProblemTimeout},
		{"reset after the headers", &sentErr{err: &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, status: 200}, "", ProblemNoAnswer},
	} {
		if got := classify(tc.err, tc.state); got != tc.want {
			t.Errorf("%s: classify = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestArming(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)
	a := NewArming(600*time.Millisecond, t0)
	if a.Armed(t0.Add(599 * time.Millisecond)) {
		t.Fatal("armed before the quiet period")
	}
	a.Key(t0.Add(500 * time.Millisecond)) // type-ahead restarts it
	if a.Armed(t0.Add(700*time.Millisecond)) || a.Remaining(t0.Add(700*time.Millisecond)) != 400*time.Millisecond {
		t.Fatal("a key did not restart the quiet period")
	}
	if !a.Armed(t0.Add(1100 * time.Millisecond)) {
		t.Fatal("not armed after a quiet period with no key")
	}
	if !(Arming{}).Armed(t0) {
		t.Fatal("the zero Arming should be armed")
	}
}

func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `[`, `"x"`, "{\n}", `1 2`, `{"a":1}}`, "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseJSON(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidJSON) {
				t.Fatalf("error does not wrap ErrInvalidJSON: %v", err)
			}
			return
		}
		if _, err := BuildReply(&a2a.Task{ID: "t"}, "", s, "m"); err != nil && strings.TrimSpace(s) != "" {
			t.Fatalf("ParseJSON accepted what BuildReply refuses: %v", err)
		}
		_ = v
	})
}

package approvals

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// Kind is what a decision does.
type Kind string

// The kinds of decision.
const (
	KindReply    Kind = "reply"     // an answer to INPUT_REQUIRED (or a negotiation on AUTH_REQUIRED)
	KindApprove  Kind = "approve"   // AUTH_REQUIRED granted
	KindDeny     Kind = "deny"      // AUTH_REQUIRED refused, with a reason
	KindFollowUp Kind = "follow-up" // a new task in the same context naming one that ended
	KindMessage  Kind = "message"   // a new task the operator starts on an agent
)

// startsTask reports whether a decision of kind k starts a new task
// (there is no task to read back before sending it, nor after).
func (k Kind) startsTask() bool { return k == KindFollowUp || k == KindMessage }

// PromptOf returns the key of the prompt a task shows now: its status
// timestamp (RFC 3339 with nanoseconds, UTC), or "message:ID" of its status
// message when the agent sets no timestamp, or "state:STATE" as a last
// resort. Two different prompts of one task have different keys.
func PromptOf(t *a2a.Task) string {
	if t == nil {
		return ""
	}
	if ts := t.Status.Timestamp; ts != nil && !ts.IsZero() {
		return ts.UTC().Format(time.RFC3339Nano)
	}
	if m := t.Status.Message; m != nil && m.ID != "" {
		return "message:" + m.ID
	}
	return "state:" + string(t.Status.State)
}

// ParseJSON validates a reply's JSON data and returns its value. The error
// says where the JSON breaks (line and column), so an editor can show it in
// place; it wraps ErrInvalidJSON.
func ParseJSON(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("%w: %s", ErrInvalidJSON, jsonWhere(s, err))
	}
	if off := dec.InputOffset(); strings.TrimSpace(s[off:]) != "" {
		skip := int64(len(s[off:]) - len(strings.TrimLeft(s[off:], " \t\r\n")))
		line, col := lineCol(s, off+skip)
		return nil, fmt.Errorf("%w: line %d, column %d: more after the JSON value; wrap several values in [ ] or { }", ErrInvalidJSON, line, col)
	}
	return v, nil
}

// jsonWhere turns a decoding error into "line L, column C: what".
func jsonWhere(s string, err error) string {
	var off int64 = -1
	switch e := err.(type) {
	case *json.SyntaxError:
		off = e.Offset
	case *json.UnmarshalTypeError:
		off = e.Offset
	}
	if err.Error() == "EOF" || strings.Contains(err.Error(), "unexpected EOF") {
		if strings.TrimSpace(s) == "" {
			return "it is empty"
		}
		line, col := lineCol(s, int64(len(s)))
		return fmt.Sprintf("line %d, column %d: it ends too early (a missing } or ]?)", line, col)
	}
	if off < 0 {
		return err.Error()
	}
	line, col := lineCol(s, off)
	return fmt.Sprintf("line %d, column %d: %s", line, col, strings.TrimPrefix(err.Error(), "json: "))
}

// lineCol converts a byte offset to a 1-based line and column.
func lineCol(s string, off int64) (int, int) {
	if off > int64(len(s)) {
		off = int64(len(s))
	}
	before := s[:off]
	line := strings.Count(before, "\n") + 1
	col := int(off) - strings.LastIndex(before, "\n")
	return line, col
}

// BuildReply builds the reply to an interrupted task: a text part, a data
// part (jsonText validated first), or both, in that order. The message
// carries the task's taskId and contextId, role user and msgID.
func BuildReply(t *a2a.Task, text, jsonText, msgID string) (*a2a.Message, error) {
	var parts []*a2a.Part
	if strings.TrimSpace(text) != "" {
		parts = append(parts, a2a.NewTextPart(text))
	}
	if strings.TrimSpace(jsonText) != "" {
		v, err := ParseJSON(jsonText)
		if err != nil {
			return nil, err
		}
		parts = append(parts, a2a.NewDataPart(v))
	}
	if len(parts) == 0 {
		return nil, ErrEmptyReply
	}
	return taskMessage(t, msgID, parts), nil
}

// DecisionValues are what an approve/deny message states.
type DecisionValues struct {
	Approve  bool
	Reason   string
	Approver string // user@host
	At       time.Time
	// Approvers are, for an approval policy's vote, every counted voter
	// of the decision; the data part names them ("approvers").
	Approvers []Voter
}

// BuildDecision builds an approve or deny message for an AUTH_REQUIRED
// task in the template's shape (the zero Template is the default shape).
// A deny needs a reason.
func BuildDecision(t *a2a.Task, v DecisionValues, tpl Template, msgID string) (*a2a.Message, error) {
	if !v.Approve && strings.TrimSpace(v.Reason) == "" {
		return nil, ErrReasonRequired
	}
	parts, err := tpl.Render(v)
	if err != nil {
		return nil, err
	}
	return taskMessage(t, msgID, parts), nil
}

// BuildFollowUp builds a message that starts a new task in the context of
// a task that ended before our reply reached it, naming the ended task in
// referenceTaskIds and carrying the same parts.
func BuildFollowUp(ended *a2a.Task, parts []*a2a.Part, msgID string) *a2a.Message {
	m := a2a.NewMessage(a2a.MessageRoleUser, clonePart(parts)...)
	m.ID = msgID
	m.ContextID = ended.ContextID
	m.ReferenceTasks = []a2a.TaskID{ended.ID}
	return m
}

func taskMessage(t *a2a.Task, msgID string, parts []*a2a.Part) *a2a.Message {
	m := a2a.NewMessage(a2a.MessageRoleUser, parts...)
	m.ID = msgID
	m.TaskID = t.ID
	m.ContextID = t.ContextID
	return m
}

// clonePart copies parts through JSON so a message never shares parts
// with the journal or another message.
func clonePart(parts []*a2a.Part) []*a2a.Part {
	b, err := json.Marshal(a2a.ContentParts(parts))
	if err != nil {
		return parts
	}
	var out a2a.ContentParts
	if err := json.Unmarshal(b, &out); err != nil {
		return parts
	}
	return out
}

// PrettyJSON indents a JSON value for display; it returns the compact form
// if indenting fails.
func PrettyJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	var buf bytes.Buffer
	if json.Indent(&buf, b, "", "  ") != nil {
		return string(b)
	}
	return buf.String()
}

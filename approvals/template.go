package approvals

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// Template is the shape of one agent's approve/deny message. The zero
// value is the default shape: text "approved" / "denied: REASON" and the
// data part {"decision","reason","approver","at"}.
//
// ApproveText and DenyText are text parts; "" keeps the default text, and
// in them the placeholders are replaced by plain text. Data is a JSON
// document in which the placeholders {{decision}}, {{approved}},
// {{reason}}, {{approver}} and {{at}} are replaced by JSON values ("deny",
// false, "…"): write them where a JSON value goes, never inside quotes.
// "" keeps the default data part. NoData sends the text part only.
// A Template is a value; it is safe for concurrent use.
type Template struct {
	ApproveText string
	DenyText    string
	Data        string
	NoData      bool
}

// placeholder matches {{name}} with optional spaces.
var placeholder = regexp.MustCompile(`\{\{\s*([a-z]+)\s*\}\}`)

// placeholders are the names a template may use.
var placeholders = map[string]bool{"decision": true, "approved": true, "reason": true, "approver": true, "at": true}

// Validate checks that the template uses only known placeholders and that
// its data renders to valid JSON. The error says what to change.
func (t Template) Validate() error {
	for _, s := range []string{t.ApproveText, t.DenyText, t.Data} {
		for _, m := range placeholder.FindAllStringSubmatch(s, -1) {
			if !placeholders[m[1]] {
				return fmt.Errorf("template: unknown placeholder {{%s}}; use {{decision}}, {{approved}}, {{reason}}, {{approver}} or {{at}}", m[1])
			}
		}
	}
	if t.Data == "" || t.NoData {
		return nil
	}
	if strings.Contains(placeholder.ReplaceAllString(t.Data, "\x00"), "\"\x00") {
		return fmt.Errorf("template: data: a placeholder stands for a whole JSON value; write {{reason}}, not \"{{reason}}\"")
	}
	sample := DecisionValues{Approve: false, Reason: `a "quoted" reason`, Approver: "user@host", At: time.Unix(0, 0)}
	if _, err := t.render(sample); err != nil {
		return err
	}
	return nil
}

// Render returns the parts of the message for v: a text part, then the
// data part unless NoData.
func (t Template) Render(v DecisionValues) ([]*a2a.Part, error) {
	return t.render(v)
}

func (t Template) render(v DecisionValues) ([]*a2a.Part, error) {
	text := t.ApproveText
	if !v.Approve {
		text = t.DenyText
	}
	if text == "" {
		text = "approved"
		if !v.Approve {
			text = "denied: {{reason}}"
		}
	}
	parts := []*a2a.Part{a2a.NewTextPart(substitute(text, v, false))}
	if t.NoData {
		return parts, nil
	}
	if t.Data == "" {
		data := map[string]any{
			"decision": decisionWord(v.Approve),
			"reason":   v.Reason,
			"approver": v.Approver,
			"at":       v.At.UTC().Format(time.RFC3339),
		}
		withApprovers(data, v.Approvers)
		return append(parts, a2a.NewDataPart(data)), nil
	}
	data := substitute(t.Data, v, true)
	var value any
	if err := json.Unmarshal([]byte(data), &value); err != nil {
		return nil, fmt.Errorf("template: data is not valid JSON once filled in (%v); placeholders stand for JSON values, write them unquoted", err)
	}
	if m, ok := value.(map[string]any); ok {
		withApprovers(m, v.Approvers)
	}
	return append(parts, a2a.NewDataPart(value)), nil
}

// withApprovers names, in an approval data object, every voter of an
// approval policy's decision: "approvers": [{"name", "at", "reason"}]
// (RFC 3339 times). It adds nothing for one click, nor over a template's
// own "approvers".
func withApprovers(data map[string]any, votes []Voter) {
	if len(votes) == 0 {
		return
	}
	if _, own := data["approvers"]; own {
		return
	}
	list := make([]any, len(votes))
	for i, v := range votes {
		list[i] = map[string]any{"name": v.Name, "at": v.At.UTC().Format(time.RFC3339), "reason": v.Reason}
	}
	data["approvers"] = list
}

func decisionWord(approve bool) string {
	if approve {
		return "approve"
	}
	return "deny"
}

// substitute replaces the placeholders in s; asJSON encodes each value as
// a JSON value, otherwise as plain text.
func substitute(s string, v DecisionValues, asJSON bool) string {
	vals := map[string]any{
		"decision": decisionWord(v.Approve),
		"approved": v.Approve,
		"reason":   v.Reason,
		"approver": v.Approver,
		"at":       v.At.UTC().Format(time.RFC3339),
	}
	return placeholder.ReplaceAllStringFunc(s, func(m string) string {
		name := placeholder.FindStringSubmatch(m)[1]
		val, ok := vals[name]
		if !ok {
			return m
		}
		if !asJSON {
			return fmt.Sprint(val)
		}
		b, err := json.Marshal(val)
		if err != nil {
			return "null"
		}
		return string(b)
	})
}

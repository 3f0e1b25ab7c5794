package approvals

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
)

// Policy is an agent's approval policy (its [agent.approval] table): how
// many approvals an AUTH_REQUIRED prompt needs before the approval is
// sent, who may vote, and how denials count. The zero Policy is one
// click: the first approve or deny is sent. A Policy is a value; it is
// safe for concurrent use.
//
// Under a policy that needs more than one approval, an approve or a
// deny is a vote (a "vote" record in the journal). Only the vote that
// completes the policy sends: the approval (or denial) then carries
// every counted voter in its data part ("approvers": [{"name", "at",
// "reason"}]) and is journaled and sent like any decision, at most once.
type Policy struct {
	// Required is how many approvals are needed; 0 and 1 are one click.
	Required int `json:"required,omitempty"`
	// Approvers are the groups whose members may vote; none: anyone who
	// may approve on the agent.
	Approvers []string `json:"approvers,omitempty"`
	// Repeat lets one operator's votes count more than once (the
	// config's distinct = false); by default a person counts once.
	Repeat bool `json:"repeat,omitempty"`
	// Deny is DenyAny ("" is the same: one denial is sent at once) or
	// DenyMajority (denials are votes too: the first side to reach
	// Required is sent; with 2·Required−1 voters, the majority).
	Deny string `json:"deny,omitempty"`
	// RequireReason refuses an approval that does not say why.
	RequireReason bool `json:"requireReason,omitempty"`
	// VoteTTL is how long a vote counts; 0 for ever.
	VoteTTL time.Duration `json:"voteTTL,omitempty"`
	// Rules change Required for prompts whose data part matches; the
	// first rule that matches wins.
	Rules []Rule `json:"rules,omitempty"`
}

// The values of Policy.Deny.
const (
	DenyAny      = "any"
	DenyMajority = "majority"
)

// Rule is one [[agent.approval.rule]]: the prompts it is for (every key
// of When equals the prompt's data part's value at that key, a dotted
// key reaching into objects; a list in When is "any of") and what
// they need.
type Rule struct {
	When     map[string]any `json:"when"`
	Required int            `json:"required"`
}

// Validate checks the policy; the error names the field.
func (p Policy) Validate() error {
	if p.Required < 0 {
		return fmt.Errorf("required: %d approvals? write 1 or more", p.Required)
	}
	if p.Deny != "" && p.Deny != DenyAny && p.Deny != DenyMajority {
		return fmt.Errorf("deny: %q is neither %q nor %q", p.Deny, DenyAny, DenyMajority)
	}
	if p.VoteTTL < 0 {
		return errors.New("vote_ttl: a vote cannot count for a negative time")
	}
	for i, r := range p.Rules {
		if err := r.Validate(); err != nil {
			return fmt.Errorf("rule[%d]: %w", i+1, err)
		}
	}
	return nil
}

// Validate checks the rule; a value of When that cannot be matched is a
// *WhenError naming its key.
func (r Rule) Validate() error {
	if r.Required < 1 {
		return fmt.Errorf("required: a rule needs required = 1 or more, not %d", r.Required)
	}
	if len(r.When) == 0 {
		return errors.New("when: a rule needs when = { field = value }; a rule for every prompt is required on [agent.approval] itself")
	}
	for _, k := range sortedWhen(r.When) {
		if err := whenValueOK(r.When[k]); err != nil {
			return &WhenError{Key: k, Msg: err.Error()}
		}
	}
	return nil
}

// WhenError is a value of a Rule's When that cannot be matched: its key
// and why.
type WhenError struct {
	Key, Msg string
}

func (e *WhenError) Error() string { return "when." + e.Key + ": " + e.Msg }

// whenValueOK accepts what can be compared with a JSON value: a
// string, number or boolean, or a list of them (any of).
func whenValueOK(v any) error {
	switch x := v.(type) {
	case string, bool, float64, float32, int, int64, int32, uint64:
		return nil
	case []any:
		if len(x) == 0 {
			return errors.New("an empty list matches nothing; list the values, like [\"production\", \"prod\"]")
		}
		for _, el := range x {
			if _, nested := el.([]any); nested || whenValueOK(el) != nil {
				return errors.New("a list holds strings, numbers or booleans only")
			}
		}
		return nil
	}
	return fmt.Errorf("a %s is not matched; write a string, a number, a boolean or a list of them (a dotted key reaches into an object)", kindWord(v))
}

func kindWord(v any) string {
	switch v.(type) {
	case map[string]any:
		return "table"
	case nil:
		return "missing value"
	}
	return reflect.TypeOf(v).String()
}

func sortedWhen(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Voting reports whether the policy makes approvals votes: it needs
// more than one somewhere, or restricts who may approve, or wants a
// reason.
func (p Policy) Voting() bool {
	if p.Required > 1 || len(p.Approvers) > 0 || p.RequireReason {
		return true
	}
	return slices.ContainsFunc(p.Rules, func(r Rule) bool { return r.Required > 1 })
}

// RequiredFor is how many approvals the prompt task shows needs: the
// first rule whose When matches its status message's data, else
// Required (at least 1).
func (p Policy) RequiredFor(t *a2a.Task) int {
	data := promptData(t)
	for _, r := range p.Rules {
		if r.matches(data) {
			return max(r.Required, 1)
		}
	}
	return max(p.Required, 1)
}

// RequiredOf is RequiredFor the task as the fleet holds it. A task whose
// content the fleet trimmed (model.Task.Truncated: its status message
// may have lost the data part a rule matches) needs what the strictest
// rule or Required needs: a trimmed prompt never takes fewer approvals
// than the one the agent sent.
func (p Policy) RequiredOf(t *model.Task) int {
	if t == nil {
		return max(p.Required, 1)
	}
	if !t.Truncated || len(p.Rules) == 0 {
		return p.RequiredFor(t.Snapshot)
	}
	n := max(p.Required, 1)
	for _, r := range p.Rules {
		n = max(n, r.Required)
	}
	return n
}

// promptData is the data parts of the task's status message that are
// JSON objects.
func promptData(t *a2a.Task) []map[string]any {
	if t == nil || t.Status.Message == nil {
		return nil
	}
	var out []map[string]any
	for _, part := range t.Status.Message.Parts {
		if part == nil {
			continue
		}
		if m, ok := normalJSON(part.Data()).(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// matches reports whether one of the data objects holds every value of
// When.
func (r Rule) matches(data []map[string]any) bool {
	return slices.ContainsFunc(data, func(d map[string]any) bool {
		for k, want := range r.When {
			got, ok := lookup(d, k)
			if !ok || !valueMatches(normalJSON(want), got) {
				return false
			}
		}
		return true
	})
}

// lookup reads key in d, a dotted key reaching into objects; a key that
// is itself in d with its dots wins.
func lookup(d map[string]any, key string) (any, bool) {
	if v, ok := d[key]; ok {
		return v, true
	}
	head, rest, dotted := strings.Cut(key, ".")
	if !dotted {
		return nil, false
	}
	inner, ok := d[head].(map[string]any)
	if !ok {
		return nil, false
	}
	return lookup(inner, rest)
}

func valueMatches(want, got any) bool {
	if list, ok := want.([]any); ok {
		return slices.ContainsFunc(list, func(w any) bool { return reflect.DeepEqual(w, got) })
	}
	return reflect.DeepEqual(want, got)
}

// normalJSON is v as JSON decodes it (numbers float64), so that a TOML
// integer equals the JSON number of the same value.
func normalJSON(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return nil
	}
	return out
}

// mayVote reports whether approver, in groups, is one of the policy's
// approvers.
func (p Policy) mayVote(groups []string) bool {
	if len(p.Approvers) == 0 {
		return true
	}
	return slices.ContainsFunc(groups, func(g string) bool { return slices.Contains(p.Approvers, g) })
}

// denyCounts reports whether a denial is a vote (deny = "majority")
// rather than sent at once.
func (p Policy) denyCounts() bool { return p.Deny == DenyMajority }

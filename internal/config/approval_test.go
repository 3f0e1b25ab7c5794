package config

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"a2atop/approvals"
)

// policyAgent is an agent whose [agent.approval] starts on line 4.
const policyAgent = "[[agent]]\nname = \"deployer\"\nurl = \"http://127.0.0.1:1\"\n[agent.approval]\n"

// releaseOp is an operator in group release.
const releaseOp = "[[operator]]\nname = \"alice\"\ntoken_env = \"ALICE_TOKEN\"\nroles = { \"*\" = [\"approve\"] }\ngroups = [\"release\"]\n"

// TestApprovalPolicyErrorsNameLineAndKey: a policy key of the wrong type,
// a rule that does not parse or names a field with a value that cannot
// be matched, and the values Validate refuses are errors at
// file:line: key.
func TestApprovalPolicyErrorsNameLineAndKey(t *testing.T) {
	tests := []struct {
		name, doc string
		line      int
		key, msg  string
	}{
		{"required as string", policyAgent + "required = \"two\"\n", 5, "agent.approval.required", "wrong type: a TOML string where a whole number is expected"},
		{"when not a table", policyAgent + "[[agent.approval.rule]]\nwhen = \"production\"\nrequired = 2\n", 6, "agent.approval.rule.when", "an inline table of field = value"},
		{"rule required as string", policyAgent + "[[agent.approval.rule]]\nwhen = { environment = \"production\" }\nrequired = \"2\"\n", 7, "agent.approval.rule.required", "a whole number"},
		{"rule as string", policyAgent + "rule = \"production needs 2\"\n", 5, "agent.approval.rule", "[[agent.approval.rule]] tables"},
		{"rule does not parse", policyAgent + "[[agent.approval.rule]]\nwhen = { environment = }\n", 6, "", "unexpected"},
		{"vote_ttl without unit", policyAgent + "vote_ttl = 30\n", 5, "agent.approval.vote_ttl", "invalid duration"},
		{"distinct as string", policyAgent + "distinct = \"yes\"\n", 5, "agent.approval.distinct", "true or false"},
		{"unknown policy key", policyAgent + "require = 2\n", 5, "agent.approval.require", "unknown key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse(t, tt.doc)
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("error = %v (%T), want *Error", err, err)
			}
			if ce.Line != tt.line || ce.Key != tt.key || !strings.Contains(ce.Msg, tt.msg) || !strings.HasPrefix(err.Error(), "test.toml:") {
				t.Errorf("got %q (line %d key %q); want line %d key %q msg containing %q", err, ce.Line, ce.Key, tt.line, tt.key, tt.msg)
			}
		})
	}
}

// TestApprovalPolicyValidate: what decodes and still cannot be a policy
// is refused at the line of the key at fault.
func TestApprovalPolicyValidate(t *testing.T) {
	const key = `agent "deployer".approval.`
	tests := []struct {
		name, doc string
		line      int
		key, msg  string
	}{
		{"negative required", policyAgent + "required = -1\n", 5, key + "required", "1 or more"},
		{"deny unknown", policyAgent + "deny = \"all\"\n", 5, key + "deny", `"any" (one denial is sent at once) or "majority"`},
		{"zero vote_ttl", policyAgent + "vote_ttl = \"0s\"\n", 5, key + "vote_ttl", "positive duration"},
		{"no_data under a policy", policyAgent + "required = 2\nno_data = true\n", 6, key + "no_data", "names its approvers in the data part"},
		{"rule without required", policyAgent + "[[agent.approval.rule]]\nwhen = { environment = \"production\" }\n", 5, key + "rule[1].required", "1 or more"},
		{"rule without when", policyAgent + "[[agent.approval.rule]]\nrequired = 2\n", 5, key + "rule[1].when", "when = { field = value }"},
		{"when value a table", policyAgent + "[[agent.approval.rule]]\nwhen = { target = { env = \"prod\" } }\nrequired = 2\n",
			6, key + "rule[1].when.target", "a table is not matched; write a string, a number, a boolean or a list"},
		{"when value a date", policyAgent + "[[agent.approval.rule]]\nwhen = { after = 2026-12-01T00:00:00Z }\nrequired = 2\n",
			6, key + "rule[1].when.after", "time.Time is not matched"},
		{"when list of lists", policyAgent + "[[agent.approval.rule]]\nwhen = { environment = [[\"a\"]] }\nrequired = 2\n",
			6, key + "rule[1].when.environment", "a list holds strings, numbers or booleans only"},
		{"group nobody is in", policyAgent + "required = 2\napprovers = [\"release\", \"sre\"]\n" + releaseOp,
			6, key + "approvers[2]", `no [[operator]] is in group "sre"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("ALICE_TOKEN", "tok-alice")
			_, err := parse(t, tt.doc)
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("error = %v (%T), want *Error", err, err)
			}
			if ce.Line != tt.line || ce.Key != tt.key || !strings.Contains(ce.Msg, tt.msg) || !strings.HasPrefix(err.Error(), "test.toml:") {
				t.Errorf("got %q (line %d key %q); want line %d key %q msg containing %q", err, ce.Line, ce.Key, tt.line, tt.key, tt.msg)
			}
		})
	}
}

// TestApprovalPolicyReadsAsWritten: the keys reach approvals.Policy, the
// defaults included (distinct true, deny any), and groups reach both the
// standalone approver and the hub's operators.
func TestApprovalPolicyReadsAsWritten(t *testing.T) {
	t.Setenv("ALICE_TOKEN", "tok-alice")
	doc := policyAgent + "required = 1\napprovers = [\"release\"]\nrequire_reason = true\nvote_ttl = \"30m\"\n" +
		"[[agent.approval.rule]]\nwhen = { environment = \"production\", replicas = 3 }\nrequired = 2\n" +
		"[[agent]]\nname = \"plain\"\nurl = \"http://127.0.0.1:2\"\n[agent.approval]\napprove_text = \"ok\"\n" + releaseOp
	c, err := parse(t, doc)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]approvals.Policy{"deployer": {Required: 1, Approvers: []string{"release"}, RequireReason: true, VoteTTL: 30 * time.Minute,
		Rules: []approvals.Rule{{When: map[string]any{"environment": "production", "replicas": int64(3)}, Required: 2}}}}
	if got := c.Policies(); !reflect.DeepEqual(got, want) {
		t.Errorf("Policies() = %+v\nwant %+v", got, want)
	}
	if g := c.Groups(); !reflect.DeepEqual(g, map[string][]string{"alice": {"release"}}) {
		t.Errorf("Groups() = %v", g)
	}
	ops, err := c.HubOperators()
	if err != nil || len(ops) != 1 || !reflect.DeepEqual(ops[0].Groups, []string{"release"}) {
		t.Errorf("HubOperators() = %+v, %v", ops, err)
	}
}

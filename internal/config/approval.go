package config

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"a2atop/approvals"
)

// ApprovalRule is one [[agent.approval.rule]]: the prompts it is for,
// matched on the AUTH_REQUIRED prompt's data part (when = { environment
// = "production" }; a dotted key reaches into objects, a list is "any
// of"), and how many approvals they need.
type ApprovalRule struct {
	When     map[string]any `toml:"when"`
	Required int            `toml:"required"`
}

// policy is the approvals.Policy of the table.
func (ap *Approval) policy() approvals.Policy {
	p := approvals.Policy{Required: ap.Required, Approvers: ap.Approvers, Deny: ap.Deny, RequireReason: ap.RequireReason,
		Repeat: ap.Distinct != nil && !*ap.Distinct}
	if ap.VoteTTL != nil {
		p.VoteTTL = ap.VoteTTL.Duration
	}
	for _, r := range ap.Rules {
		p.Rules = append(p.Rules, approvals.Rule{When: r.When, Required: r.Required})
	}
	return p
}

// validatePolicy checks the policy keys; the *Error's Key is relative to
// the agent ("approval.rule[2].when.environment").
func (ap *Approval) validatePolicy() error {
	fail := func(key, format string, args ...any) error {
		return &Error{Key: "approval." + key, Msg: fmt.Sprintf(format, args...)}
	}
	switch {
	case ap.Required < 0:
		return fail("required", "must be 1 or more approvals (0 or leaving it out: one click), not %d", ap.Required)
	case ap.Deny != "" && ap.Deny != approvals.DenyAny && ap.Deny != approvals.DenyMajority:
		return fail("deny", "%q is not a way to count denials; use \"any\" (one denial is sent at once) or \"majority\"", ap.Deny)
	case ap.VoteTTL != nil && ap.VoteTTL.Duration <= 0:
		return fail("vote_ttl", "must be a positive duration like \"30m\", not %s (leave it out: votes count until the prompt is decided)", ap.VoteTTL)
	case ap.NoData && ap.policy().Voting():
		return fail("no_data", "an approval policy names its approvers in the data part; remove no_data = true")
	}
	for i, g := range ap.Approvers {
		if strings.TrimSpace(g) == "" {
			return fail(fmt.Sprintf("approvers[%d]", i+1), "a group name must not be empty")
		}
	}
	for i, r := range ap.Rules {
		at := fmt.Sprintf("rule[%d]", i+1)
		switch {
		case r.Required < 1:
			return fail(at+".required", "a rule needs required = 1 or more approvals, not %d", r.Required)
		case len(r.When) == 0:
			return fail(at+".when", "a rule needs when = { field = value } to say which prompts it is for")
		}
		if err := (approvals.Rule{When: r.When, Required: r.Required}).Validate(); err != nil {
			var we *approvals.WhenError
			if errors.As(err, &we) {
				return fail(at+".when."+we.Key, "%s", we.Msg)
			}
			return fail(at, "%v", err)
		}
	}
	return nil
}

// validateApprovers checks that every group a policy names is a group
// of some [[operator]]: a group nobody is in could never vote.
func (c *Config) validateApprovers() error {
	var groups []string
	for _, op := range c.Operators {
		groups = append(groups, op.Groups...)
	}
	for i, a := range c.Agents {
		if a.Approval == nil {
			continue
		}
		for j, g := range a.Approval.Approvers {
			if !slices.Contains(groups, g) {
				return c.agentError(i, &a, &Error{Key: fmt.Sprintf("approval.approvers[%d]", j+1),
					Msg: fmt.Sprintf("no [[operator]] is in group %q, so nobody could vote; add groups = [%q] to the operators who approve", g, g)})
			}
		}
	}
	return nil
}

// Policies maps each agent whose [agent.approval] sets a policy to it,
// for approvals.Options.Policies.
func (c *Config) Policies() map[string]approvals.Policy {
	m := map[string]approvals.Policy{}
	for _, a := range c.Agents {
		if a.Approval != nil && a.Approval.policy().Voting() {
			m[a.Name] = a.Approval.policy()
		}
	}
	return m
}

// Groups maps each [[operator]] to its groups, for
// approvals.Options.Groups: a standalone dashboard's approver (the
// approver key, or user@host) is in the groups of the operator of that
// name.
func (c *Config) Groups() map[string][]string {
	m := map[string][]string{}
	for _, op := range c.Operators {
		if len(op.Groups) > 0 {
			m[op.Name] = op.Groups
		}
	}
	return m
}

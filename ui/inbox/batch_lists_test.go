package inbox

import (
	"strings"
	"testing"
	"time"

	"a2atop/approvals"
	"a2atop/model"
	"a2atop/ui/common"
)

// TestABatchListsEachTaskOnce: a chain's root and its end both marked
// (ctrl+a marks both): the end gets one answer, listed once, and the
// root is skipped under its own name; every marked task is in exactly
// one list, and the counts add up in the confirmation and in the
// outcomes, whichever of the two comes first. The end was listed as
// approved "(for planner · 5b1e0c7a)" and as skipped, and the outcomes
// counted 3 tasks for the 4 marked.
func TestABatchListsEachTaskOnce(t *testing.T) {
	root, end := model.TaskKey{Agent: "planner", ID: idPlan}, model.TaskKey{Agent: "deployer", ID: idDeploy}
	review, other := model.TaskKey{Agent: "code-reviewer", ID: idReview}, model.TaskKey{Agent: "deployer", ID: idOther}
	for _, order := range [][]model.TaskKey{{root, end, review, other}, {end, root, other, review}} {
		fx := newFixture(t, false)
		m := newInbox(t, fx)
		var c common.Component = m
		c, _ = c.Update(common.DecideMsg{Kind: approvals.KindApprove, Keys: order})
		if m.mode != modeBatch {
			t.Fatalf("%v: mode %d, said %q", order, m.mode, fx.said())
		}
		seen := map[model.TaskKey]string{}
		note := func(k model.TaskKey, list string) {
			if prev, dup := seen[k]; dup {
				t.Errorf("%v: %s is listed as %s and as %s", order, keyName(k), prev, list)
			}
			seen[k] = list
		}
		for _, p := range m.plan.plans {
			note(p.key, "answered")
			if p.via != (model.TaskKey{}) {
				note(p.via, "answered through its chain's end")
			}
		}
		for _, s := range m.plan.skipped {
			note(s.Key, "skipped")
		}
		if len(seen) != len(order) {
			t.Errorf("%v: %d of the %d marked tasks are listed: %v", order, len(seen), len(order), seen)
		}
		if seen[end] != "answered" || seen[other] != "answered" || seen[root] != "skipped" || seen[review] != "skipped" {
			t.Errorf("%v: lists %v; want the chain's end and the other deploy answered, the root and the question skipped", order, seen)
		}
		v := c.View()
		if !strings.Contains(v, "Approve these 2 requests?") || !strings.Contains(v, "skipped (2)") {
			t.Errorf("%v: the confirmation does not count 2 + 2:\n%s", order, v)
		}
		fx.clk.add(time.Second)
		drive(c, "y")
		if m.results == nil || m.results.Len() != len(order) {
			t.Fatalf("%v: the outcomes list %d tasks, want the %d marked", order, m.results.Len(), len(order))
		}
		if text, _ := m.results.Summary(); text != "approve: 2 sent, 2 skipped" {
			t.Errorf("%v: the outcomes count %q, want 2 sent, 2 skipped", order, text)
		}
	}
}

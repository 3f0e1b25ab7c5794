package common

import (
	"strings"
	"testing"

	"a2atop/approvals"
)

func TestJournalDamageNamesTheFileTheLinesAndTheAgents(t *testing.T) {
	d := func(line int, agent string, all, torn bool) approvals.Damage {
		return approvals.Damage{Path: "/state/a2atop/journal.jsonl", Line: line, Agent: agent, AllAgents: all, Torn: torn, Blocks: true}
	}
	for _, tc := range []struct {
		ds   []approvals.Damage
		want []string
	}{
		{nil, nil},
		{[]approvals.Damage{d(17, "deployer", false, false)}, []string{
			"decisions on deployer are refused until an operator looks: journal.jsonl line 17 is damaged — run a2atop journal check",
			"decisions on deployer refused: journal.jsonl line 17 damaged — run a2atop journal check",
			"journal.jsonl line 17 damaged: no decisions on deployer · a2atop journal check"}},
		{[]approvals.Damage{d(3, "deployer", false, false), d(9, "planner", false, false)}, []string{
			"decisions on deployer and planner are refused until an operator looks: journal.jsonl lines 3 and 9 are damaged — run a2atop journal check"}},
		{[]approvals.Damage{d(3, "a", false, false), d(4, "b", false, false), d(5, "a", false, false), d(6, "c", false, false), d(7, "d", false, false)}, []string{
			"decisions on a, b and 2 more agents are refused until an operator looks: journal.jsonl lines 3, 4, 5 and 2 more are damaged — run a2atop journal check"}},
		{[]approvals.Damage{d(3, "deployer", false, false), d(8, "", true, false)}, []string{
			"decisions on every agent are refused until an operator looks: journal.jsonl lines 3 and 8 are damaged — run a2atop journal check",
			"decisions on every agent refused: journal.jsonl lines 3 and 8 damaged — run a2atop journal check",
			"journal.jsonl lines 3 and 8 damaged: no decisions on any agent · a2atop journal check"}},
		{[]approvals.Damage{d(12, "deployer", false, true)}, []string{
			"decisions on deployer wait: journal.jsonl line 12 holds a cut decision (sent or not: unknown until GetTask settles it) — reconciling with the agent, or run a2atop journal check"}},
		{[]approvals.Damage{d(12, "deploy\x1b]0;x\x07er", false, false)}, []string{
			"decisions on deployer are refused until an operator looks: journal.jsonl line 12 is damaged — run a2atop journal check"}},
	} {
		got := JournalDamage(tc.ds)
		if len(tc.want) == 0 && got != nil {
			t.Errorf("JournalDamage(nil) = %q", got)
		}
		for i, w := range tc.want {
			if i >= len(got) || got[i] != w {
				t.Errorf("JournalDamage(%v)[%d] = %q, want %q", tc.ds, i, strings.Join(got, " | "), w)
			}
		}
	}
	v := JournalDamage([]approvals.Damage{d(17, "deployer", false, false)})
	if got := FirstFit(80, v...); got != v[2] {
		t.Errorf("at 80 columns: %q", got)
	}
	if got := FirstFit(20, v...); got != "journal.jsonl line …" {
		t.Errorf("at 20 columns: %q", got)
	}
}

package common

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"a2atop/approvals"
	"a2atop/internal/sanitize"
)

// JournalDamage says in one line what the damaged journal lines ds (from
// Service.Blocking) refuse, naming the file, the lines and the agents:
// "decisions on deployer are refused until an operator looks:
// journal.jsonl line 17 is damaged — run a2atop journal check". It
// returns the same in shorter words after it, for narrower screens (see
// FirstFit), or nil when ds is empty. What came from the journal is
// sanitized.
func JournalDamage(ds []approvals.Damage) []string {
	if len(ds) == 0 {
		return nil
	}
	file, scope, lines := filepath.Base(ds[0].Path), damageScope(ds), damageLines(ds)
	none := "no decisions on " + scope
	if scope == "every agent" {
		none = "no decisions on any agent"
	}
	torn := true
	for _, d := range ds {
		torn = torn && d.Torn && !d.Delivered // one the agent holds is for an operator
	}
	be, holds := "is", "holds a cut decision"
	if len(ds) > 1 {
		be, holds = "are", "hold cut decisions"
	}
	var v []string
	if torn { // cut decisions: sent or not, GetTask settles it
		v = []string{
			fmt.Sprintf("decisions on %s wait: %s %s %s (sent or not: unknown until GetTask settles it) — reconciling with the agent, or run a2atop journal check", scope, file, lines, holds),
			fmt.Sprintf("decisions on %s wait: %s %s torn — reconciling, or run a2atop journal check", scope, file, lines),
			fmt.Sprintf("%s %s torn: decisions on %s wait · a2atop journal check", file, lines, scope),
		}
	} else {
		v = []string{
			fmt.Sprintf("decisions on %s are refused until an operator looks: %s %s %s damaged — run a2atop journal check", scope, file, lines, be),
			fmt.Sprintf("decisions on %s refused: %s %s damaged — run a2atop journal check", scope, file, lines),
			fmt.Sprintf("%s %s damaged: %s · a2atop journal check", file, lines, none),
		}
	}
	for i := range v {
		v[i] = sanitize.Line(v[i], math.MaxInt)
	}
	return v
}

// damageScope names the agents ds block: "deployer", "deployer and
// planner", "deployer, planner and 2 more agents", or "every agent".
func damageScope(ds []approvals.Damage) string {
	var names []string
	seen := map[string]bool{}
	for _, d := range ds {
		if d.AllAgents {
			return "every agent"
		}
		if !seen[d.Agent] {
			seen[d.Agent] = true
			names = append(names, d.Agent)
		}
	}
	switch len(names) {
	case 1:
		return names[0]
	case 2:
		return names[0] + " and " + names[1]
	}
	return fmt.Sprintf("%s, %s and %d more agents", names[0], names[1], len(names)-2)
}

// damageLines is "line 17", "lines 17 and 20", "lines 17, 20, 31 and 2
// more".
func damageLines(ds []approvals.Damage) string {
	n := make([]string, 0, min(len(ds), 3))
	for _, d := range ds[:min(len(ds), 3)] {
		n = append(n, strconv.Itoa(d.Line))
	}
	switch {
	case len(ds) == 1:
		return "line " + n[0]
	case len(ds) == 2:
		return "lines " + n[0] + " and " + n[1]
	case len(ds) == 3:
		return "lines " + n[0] + ", " + n[1] + " and " + n[2]
	}
	return fmt.Sprintf("lines %s and %d more", strings.Join(n, ", "), len(ds)-3)
}

// BlockingOn is the damaged lines of ds that refuse decisions on agent.
func BlockingOn(ds []approvals.Damage, agent string) []approvals.Damage {
	var out []approvals.Damage
	for _, d := range ds {
		if d.AllAgents || d.Agent == agent {
			out = append(out, d)
		}
	}
	return out
}

// BlockedWords says, while a damaged line of svc's journal refuses
// decisions on agent (Service.Blocked), which line and what to do, in w
// cells (a footer cuts the rest); "" when decisions on agent may be sent,
// or svc is nil.
func BlockedWords(svc *approvals.Service, agent string, w int) string {
	if svc == nil {
		return ""
	}
	err := svc.Blocked(agent)
	if err == nil {
		return ""
	}
	if v := JournalDamage(BlockingOn(svc.Blocking(), agent)); v != nil {
		return FirstFit(w, v...)
	}
	return err.Error()
}

// FirstFit is the first of texts that fits in w cells, else the last cut
// to w with "…".
func FirstFit(w int, texts ...string) string {
	for _, t := range texts {
		if ansi.StringWidth(t) <= w {
			return t
		}
	}
	if len(texts) == 0 {
		return ""
	}
	return ansi.Truncate(texts[len(texts)-1], w, "…")
}

package inbox

import (
	"fmt"

	"a2atop/approvals"
	"a2atop/model"
)

// decisionHead is the first line of a decision in the journal: when, what,
// on which task, and who decided. On a team's hub the journal is the
// team's and who decided comes second, in its own column, "you" for the
// operator of this dashboard; a local journal names the approver at the
// end.
func (j *Journal) decisionHead(mark string, e approvals.Entry) string {
	task := keyName(model.TaskKey{Agent: e.Agent, ID: e.TaskID})
	if j.ctx.Team == nil {
		return fmt.Sprintf("%s%s  %-9s %s%s  by %s", mark, stamp(e.DecidedAt), e.Kind, task, recordedAs(e), e.Approver)
	}
	who := e.Approver
	if who == j.ctx.Team.Operator() {
		who += " (you)"
	}
	return fmt.Sprintf("%s%s  %-14s %-9s %s%s", mark, stamp(e.DecidedAt), who, e.Kind, task, recordedAs(e))
}

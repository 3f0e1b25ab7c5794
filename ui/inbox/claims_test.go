package inbox

import (
	"strings"
	"testing"

	"a2atop/approvals"
	"a2atop/model"
)

// TestARefusalByTheHubShowsOnItsTask: a decision the team's hub refused
// because another operator decided the prompt first (its 409, with the
// winner) says so on the task's row and under its question while the
// task still waits there; the task's next prompt does not inherit it.
func TestARefusalByTheHubShowsOnItsTask(t *testing.T) {
	fx := newFixture(t, false)
	m := newInbox(t, fx)
	k := model.TaskKey{Agent: "deployer", ID: idDeploy}
	m.selectKey(k)
	winner := &approvals.Winner{Approver: "alice", At: t0, Kind: approvals.KindApprove, Result: approvals.ResultAccepted}
	m.Update(SentMsg{Key: k, from: fromInbox, Outcome: approvals.Outcome{Agent: k.Agent, TaskID: k.ID, Kind: approvals.KindApprove,
		Result: approvals.ResultRefused, Problem: approvals.ProblemDecided, Winner: winner}})
	want := "your approve was refused: " + winner.Words()
	v := m.View()
	row := ""
	for _, l := range strings.Split(v, "\n") {
		if strings.HasPrefix(l, "▸ ") {
			row = l
		}
	}
	if !strings.Contains(row, "["+want[:40]) {
		t.Errorf("the row does not say the hub refused: %q", row)
	}
	if !strings.Contains(v, want) {
		t.Errorf("the question does not say %q:\n%s", want, v)
	}
	it := *m.find(k)
	it.Prompt = "another prompt"
	if w := m.refusedWords(it); w != "" {
		t.Errorf("a new prompt of the task shows the old refusal: %q", w)
	}
}

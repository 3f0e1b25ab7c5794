package approvals

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/internal/agenttest"
	"a2atop/model"
)

// fixture is one test agent, a sender that knows it as "agent", and a
// service journaling to a temporary directory.
type fixture struct {
	ag   *testAgent
	snd  *sdkSender
	svc  *Service
	path string
}

func newFixture(t *testing.T, mod ...func(*Options)) *fixture {
	t.Helper()
	fx := &fixture{ag: startAgent(t), snd: newSDKSender()}
	fx.snd.add(t, "agent", fx.ag.srv.URL, "")
	fx.path = filepath.Join(t.TempDir(), "state", "journal.jsonl")
	o := Options{JournalPath: fx.path, Sender: fx.snd, Approver: "ops@test", SendTimeout: 5 * time.Second,
		Agents: []Agent{{Name: "agent", URL: fx.ag.srv.URL}}}
	for _, m := range mod {
		m(&o)
	}
	svc, err := Open(o)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { svc.Close() })
	fx.svc = svc
	return fx
}

// open opens another Service on the fixture's journal, as another
// process would (its own file descriptors, locks and memory).
func (fx *fixture) open(t *testing.T, approver string) *Service {
	t.Helper()
	svc, err := Open(Options{JournalPath: fx.path, Sender: fx.snd, Approver: approver, SendTimeout: 5 * time.Second,
		Agents: []Agent{{Name: "agent", URL: fx.ag.srv.URL}}})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { svc.Close() })
	return svc
}

// start begins a task on the agent ("ask", "deploy", "oob") and returns it
// once it is interrupted, as the fleet would hold it.
func (fx *fixture) start(t *testing.T, kind string) *model.Task {
	t.Helper()
	c, err := fx.snd.client("agent")
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.SendMessage(context.Background(), &a2a.SendMessageRequest{
		Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(kind))})
	if err != nil {
		t.Fatalf("start %s: %v", kind, err)
	}
	task, ok := res.(*a2a.Task)
	if !ok {
		t.Fatalf("start %s: got %T, want a task", kind, res)
	}
	return fx.task(t, task.ID, func(s a2a.TaskState) bool { return model.ClassOf(s) == model.ClassInterrupted })
}

// task reads a task back once cond holds for its state, as a model.Task.
func (fx *fixture) task(t *testing.T, id a2a.TaskID, cond func(a2a.TaskState) bool) *model.Task {
	t.Helper()
	snap := fx.ag.waitState(id, cond)
	return modelTask("agent", snap)
}

func modelTask(agent string, snap *a2a.Task) *model.Task {
	st := model.NormalizeState(snap.Status.State)
	mt := &model.Task{Key: model.TaskKey{Agent: agent, ID: snap.ID}, Snapshot: snap, State: st, Class: model.ClassOf(st)}
	if snap.Status.Timestamp != nil {
		mt.Updated = *snap.Status.Timestamp
	}
	return mt
}

func isTerminal(s a2a.TaskState) bool { return model.ClassOf(s) == model.ClassTerminal }

// mustPrepare prepares a decision for a task held alone (a chain of one).
func (fx *fixture) mustPrepare(t *testing.T, mt *model.Task, in Input) *Decision {
	t.Helper()
	d, err := fx.svc.Prepare(fx.svc.ItemFor(mt), in)
	if err != nil {
		t.Fatalf("Prepare(%+v): %v", in, err)
	}
	return d
}

// records reads the journal file back as records (the lines that are).
func records(t testing.TB, path string) []record {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []record
	for i, raw := range bytes.Split(b, []byte{'\n'}) {
		if l := parseLine(i+1, raw, false); len(raw) > 0 && l.err == nil {
			out = append(out, l.rec)
		}
	}
	return out
}

// appendRecords appends records to the journal at path as a writer does.
func appendRecords(t testing.TB, path string, recs ...record) {
	t.Helper()
	st, err := openFileStore(path, false, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer st.close()
	ignore := func([]line, bool) {}
	if err := st.update(ignore, func() ([]record, error) { return recs, nil }); err != nil {
		t.Fatal(err)
	}
}

// journalLines reads the journal file's lines as parseLine sees them.
func journalLines(t testing.TB, path string) []line {
	t.Helper()
	st, err := openFileStore(path, true, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer st.close()
	var out []line
	err = st.follow(func(ls []line, _ bool) {
		for _, l := range ls {
			if l.walkOnly == walkAll { // not the previous segment's last line, which seeds the chain
				out = append(out, l)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// recordTypes lists "type:result" for the records of one decision.
func recordTypes(recs []record, id string) []string {
	var out []string
	for _, r := range recs {
		if r.ID != id {
			continue
		}
		s := r.Type
		if r.Result != "" {
			s += ":" + string(r.Result)
		}
		if r.Type == recState {
			s += ":" + model.ShortState(r.To)
		}
		out = append(out, s)
	}
	return out
}

// production is alice's and bob's processes on the fixture's journal
// and a production deploy that asks them, as the fleet holds it.
func (fx *voteFixture) production(t *testing.T) (alice, bob *Service, id a2a.TaskID, mt *model.Task) {
	t.Helper()
	alice, bob = fx.open(t, "alice"), fx.open(t, "bob")
	id = fx.ag.Start("deploy production")
	return alice, bob, id, fx.asking(t, id, 0)
}

// voted is svc's approval, "ok", recorded as a vote that sends nothing.
func voted(t *testing.T, svc *Service, mt *model.Task) {
	t.Helper()
	if o := vote(t, svc, mt, KindApprove, "ok"); o.Result != ResultVoted {
		t.Fatalf("%s: %s", svc.Approver(), o.Words())
	}
}

// noneSent checks that the agent received no message on the task.
func noneSent(t *testing.T, ag *agenttest.Agent, id a2a.TaskID) {
	t.Helper()
	if n := ag.OnTask(id); n != 0 {
		t.Errorf("the agent received %d messages, want none", n)
	}
}

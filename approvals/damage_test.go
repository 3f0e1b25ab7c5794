package approvals

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// decidedOOB journals one approve on an agent that takes authorization
// out of band only: the agent refuses it and the task stays at the same
// prompt, so only the journal stands between the operator and a second
// decision. It returns the task and the journal's bytes.
func decidedOOB(t *testing.T, fx *fixture) (*Decision, []byte) {
	t.Helper()
	mt := fx.start(t, "oob")
	d := fx.mustPrepare(t, mt, Input{Kind: KindApprove})
	if out := fx.svc.Send(context.Background(), d); out.Problem != ProblemOutOfBand {
		t.Fatalf("first decision: %s/%s %v", out.Result, out.Problem, out.Err)
	}
	fx.svc.Close()
	b, err := os.ReadFile(fx.path)
	if err != nil {
		t.Fatal(err)
	}
	return d, b
}

// TestEveryCorruptByteOfADecisionBlocksTheAgent: one byte of the decision
// line changed, at every position in turn. Whatever the change (a line
// that no longer parses, or one that parses to another agent, task or
// prompt), no second decision reaches the agent: Prepare refuses, and so
// does Send of a decision prepared before the damage was read, in words
// that name the file and the line.
func TestEveryCorruptByteOfADecisionBlocksTheAgent(t *testing.T) {
	fx := newFixture(t)
	d, orig := decidedOOB(t, fx)
	mt := fx.task(t, d.TaskID, func(a2a.TaskState) bool { return true })
	// A decision prepared where the first is not known (a view built
	// before the journal was read): Send must refuse it on its own.
	blank, err := Open(Options{JournalPath: t.TempDir() + "/journal.jsonl", Sender: fx.snd})
	if err != nil {
		t.Fatal(err)
	}
	pre, err := blank.Prepare(blank.ItemFor(mt), Input{Kind: KindApprove})
	blank.Close()
	if err != nil {
		t.Fatal(err)
	}
	reached := fx.ag.onTask(d.TaskID)
	end := bytes.IndexByte(orig, '\n')
	for i := range end {
		b := bytes.Clone(orig)
		b[i] ^= 0x01
		if err := os.WriteFile(fx.path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		svc, err := Open(Options{JournalPath: fx.path, Sender: fx.snd, Approver: "ops@test",
			Agents: []Agent{{Name: "agent", URL: fx.ag.srv.URL}}})
		if err != nil {
			t.Fatal(err)
		}
		_, perr := svc.Prepare(svc.ItemFor(mt), Input{Kind: KindApprove})
		if !errors.Is(perr, ErrJournalDamaged) || !strings.Contains(perr.Error(), fx.path+" line 1 ") {
			t.Fatalf("byte %d (%q -> %q) changed: Prepare = %v; want ErrJournalDamaged naming %s line 1", i, orig[i], b[i], perr, fx.path)
		}
		if i%50 == 0 { // Send asks again under the lock, after reading the file
			pre2 := *pre
			pre2.MessageID = a2a.NewMessageID()
			m := *pre.Message
			m.ID, pre2.Message = pre2.MessageID, &m
			out := svc.Send(context.Background(), &pre2)
			if out.Problem != ProblemDamaged || !errors.Is(out.Err, ErrJournalDamaged) {
				t.Fatalf("byte %d changed: Send = %s/%s %v", i, out.Result, out.Problem, out.Err)
			}
		}
		svc.Close()
		if n := fx.ag.onTask(d.TaskID); n != reached {
			t.Fatalf("byte %d changed: a second decision reached the agent", i)
		}
	}
}

// TestDamageNamingNoAgentBlocksEveryAgent: a damaged line that does not
// say which agent it was about blocks every agent, and says so.
func TestDamageNamingNoAgentBlocksEveryAgent(t *testing.T) {
	fx := newFixture(t)
	_, orig := decidedOOB(t, fx)
	if err := os.WriteFile(fx.path, append(orig, []byte("\x00\x17garbage}\n")...), 0o600); err != nil {
		t.Fatal(err)
	}
	svc := fx.open(t, "ops@test")
	dm := svc.Blocking()
	if len(dm) != 1 || dm[0].Line != bytes.Count(orig, []byte{'\n'})+1 || !dm[0].AllAgents || !strings.Contains(dm[0].Words(), "every agent") {
		t.Fatalf("damage = %+v", dm)
	}
	other := fx.start(t, "ask")
	if _, err := svc.Prepare(svc.ItemFor(other), Input{Kind: KindReply, Text: "main"}); !errors.Is(err, ErrJournalDamaged) {
		t.Fatalf("a decision on another task of the agent: %v", err)
	}
	for _, name := range []string{"agent", "deployer"} {
		if err := svc.Blocked(name); !errors.Is(err, ErrJournalDamaged) {
			t.Fatalf("%s not blocked: %v", name, err)
		}
	}
}

// TestLostDecisionLineBlocksItsAgent: a decision's line gone (cut out),
// its outcome still there: the outcome names a decision no line holds,
// and stands for it.
func TestLostDecisionLineBlocksItsAgent(t *testing.T) {
	fx := newFixture(t)
	_, orig := decidedOOB(t, fx)
	rest := orig[bytes.IndexByte(orig, '\n')+1:]
	if err := os.WriteFile(fx.path, rest, 0o600); err != nil {
		t.Fatal(err)
	}
	svc := fx.open(t, "ops@test")
	dm := svc.Blocking()
	if len(dm) == 0 || dm[0].Line != 1 || !strings.Contains(dm[0].Reason, "no readable line") {
		t.Fatalf("damage = %+v", dm)
	}
	if err := svc.Blocked("agent"); !errors.Is(err, ErrJournalDamaged) {
		t.Fatalf("not blocked: %v", err)
	}
}

// TestAcceptResolvesTheLineLookedAt: the operator accepts a damaged line;
// an "ack" naming it and its hash is appended, the bytes before it are
// untouched, and decisions go out again. An acceptance holds for the
// bytes accepted only.
func TestAcceptResolvesTheLineLookedAt(t *testing.T) {
	fx := newFixture(t)
	d, orig := decidedOOB(t, fx)
	damaged := bytes.Clone(orig)
	damaged[bytes.Index(damaged, []byte(`"task"`))+2] = '#'
	if err := os.WriteFile(fx.path, damaged, 0o600); err != nil {
		t.Fatal(err)
	}
	svc := fx.open(t, "ops@test")
	dm := svc.Blocking()
	if len(dm) != 1 || dm[0].Agent != "agent" || dm[0].MessageID != d.MessageID || dm[0].Type != recDecision {
		t.Fatalf("damage = %+v", dm)
	}
	if _, err := svc.Accept(2, ""); err == nil {
		t.Fatal("accepted a line that is not damaged")
	}
	got, err := svc.Accept(1, "looked at it: the out-of-band refusal of "+d.MessageID)
	if err != nil || got.AcceptedBy != "ops@test" || got.Open() {
		t.Fatalf("Accept = %+v, %v", got, err)
	}
	after, _ := os.ReadFile(fx.path)
	if !bytes.HasPrefix(after, damaged) || !bytes.Contains(after[len(damaged):], []byte(`"type":"ack"`)) {
		t.Fatalf("the journal was rewritten, or no ack appended:\n%s", after)
	}
	if err := svc.Blocked("agent"); err != nil {
		t.Fatalf("still blocked after Accept: %v", err)
	}
	if _, err := svc.Accept(1, ""); err == nil {
		t.Fatal("accepted twice")
	}
	again := fx.open(t, "other@test")
	if again.Damaged() != 0 || len(again.Damage()) != 1 || again.Damage()[0].AcceptedBy != "ops@test" {
		t.Fatalf("the acceptance was not read back: %+v", again.Damage())
	}
	again.Close()

	// The same line damaged otherwise (another byte) is another line.
	ack := after[len(damaged):]
	other := bytes.Clone(orig)
	other[bytes.Index(other, []byte(`"task"`))+3] = '#'
	if err := os.WriteFile(fx.path, append(other, ack...), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := fx.open(t, "ops@test").Blocked("agent"); !errors.Is(err, ErrJournalDamaged) {
		t.Fatalf("an acceptance of other bytes unblocked the line: %v", err)
	}
}

package approvals

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"
)

// TestACutDecisionThatWasDeliveredIsNotCalledUnsent: a decision that
// was journaled and delivered (a real SDK agent took it), whose line was
// then cut (the file truncated in the middle of it: a copy, a restore, a
// disk). The torn line is not "never sent": its outcome is unknown until
// GetTask settles it, and Reconcile, finding the messageId in the task's
// history, says it was delivered and leaves the line for an operator.
// The words said "it was never sent, since a decision is fsynced…",
// which invites a second send.
func TestACutDecisionThatWasDeliveredIsNotCalledUnsent(t *testing.T) {
	fx := newFixture(t)
	mt := fx.start(t, "ask")
	d := fx.mustPrepare(t, mt, Input{Kind: KindReply, Text: "main"})
	if out := fx.svc.Send(context.Background(), d); out.Result != ResultAccepted {
		t.Fatalf("send: %s/%s %v", out.Result, out.Problem, out.Err)
	}
	b, err := os.ReadFile(fx.path)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(b, []byte(`"type":"decision"`))
	end := at + bytes.IndexByte(b[at:], '\n')
	if at < 0 || end <= at {
		t.Fatalf("no decision line in %s", b)
	}
	if err := os.WriteFile(fx.path, b[:(at+end)/2], 0o600); err != nil { // cut in the middle of the decision line
		t.Fatal(err)
	}
	svc := fx.open(t, "later@test")
	bl := svc.Blocking()
	if len(bl) != 1 || !bl[0].Torn || bl[0].MessageID != d.MessageID {
		t.Fatalf("Blocking = %+v, want the torn decision %s", bl, d.MessageID)
	}
	for _, w := range []string{bl[0].Words(), bl[0].Delivery()} {
		if strings.Contains(w, "never sent") || !strings.Contains(w, "unknown until GetTask settles it") {
			t.Errorf("the torn line before GetTask says %q; want its outcome unknown, never \"never sent\"", w)
		}
	}
	svc.Reconcile(context.Background())
	bl = svc.Blocking()
	if len(bl) != 1 {
		t.Fatalf("after Reconcile, Blocking = %+v: a delivered decision the journal lost stays for an operator", bl)
	}
	if w := bl[0].Words(); !strings.Contains(w, "delivered") || !strings.Contains(w, "holds messageId "+d.MessageID) || strings.Contains(w, "never sent") {
		t.Errorf("after Reconcile the torn line says %q; want that the agent holds it", w)
	}
	if _, err := svc.Prepare(svc.ItemFor(mt), Input{Kind: KindReply, Text: "again"}); !errors.Is(err, ErrJournalDamaged) {
		t.Errorf("Prepare over a delivered decision the journal lost: %v, want refused", err)
	}
	if n := fx.ag.times(d.MessageID); n != 1 {
		t.Errorf("the agent received the decision %d times, want 1", n)
	}
}

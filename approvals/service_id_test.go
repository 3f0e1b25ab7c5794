package approvals

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

// TestPendingOfAnotherServiceInThisProcess: two Services share a
// journal in one process (two hubs in one test process, or serve with
// an SSH server). While alice's send is under way, bob's Service must
// take her pending decision for one being sent (refuse his own on the
// prompt, leave hers to her), not for one a crash left. It took the
// shared pid for its own and offered to settle hers.
func TestPendingOfAnotherServiceInThisProcess(t *testing.T) {
	fx := newFixture(t, func(o *Options) { o.Approver = "alice@test" })
	mt := fx.start(t, "deploy")
	bob := fx.open(t, "bob@test")
	early, err := bob.Prepare(bob.ItemFor(mt), Input{Kind: KindDeny, Reason: "not now"})
	if err != nil {
		t.Fatal(err)
	}
	d := fx.mustPrepare(t, mt, Input{Kind: KindApprove})
	fx.ag.holdBefore.Store(true) // alice's send stays under way until its timeout
	done := make(chan Outcome, 1)
	go func() { done <- fx.svc.Send(context.Background(), d) }()
	for i := 0; ; i++ {
		if _, err := bob.Refresh(); err != nil {
			t.Fatal(err)
		}
		if e, ok := bob.Entry(d.MessageID); ok && e.Result == ResultPending {
			break
		}
		if i == 500 {
			t.Fatal("bob never read alice's pending decision")
		}
		time.Sleep(10 * time.Millisecond)
	}
	out := bob.Send(context.Background(), early)
	if !errors.Is(out.Err, ErrAlreadyDecided) || !strings.Contains(out.Err.Error(), "is sending") {
		t.Errorf("bob's send while alice's is under way: %s/%s %v; want it refused as being sent", out.Result, out.Problem, out.Err)
	}
	if rs := bob.Reconcile(context.Background()); len(rs) != 0 {
		t.Errorf("bob settled alice's decision while she sends it: %+v", rs)
	}
	fx.ag.holdBefore.Store(false)
	<-done
	if n := fx.ag.times(early.MessageID); n != 0 {
		t.Fatalf("bob's decision reached the agent %d times", n)
	}
}

// TestSendingElsewhereByServiceID: a pending record of this host and
// process is being sent while the Service that wrote it is open; one of
// a closed Service, or one written before Services had ids, is not.
func TestSendingElsewhereByServiceID(t *testing.T) {
	fx := newFixture(t)
	other := fx.open(t, "bob@test")
	closed := fx.open(t, "carol@test")
	closed.Close()
	s := fx.svc
	entry := func(svc string) *Entry {
		return &Entry{Result: ResultPending, host: s.host, pid: os.Getpid(), svc: svc, until: time.Now().Add(time.Minute)}
	}
	for _, tt := range []struct {
		name string
		e    *Entry
		want bool
	}{
		{"another open Service of this process", entry(other.id), true},
		{"a closed Service of this process", entry(closed.id), false},
		{"this Service (a record it did not fold as its own)", entry(s.id), false},
		{"a record without a Service id, of this process", entry(""), false},
		{"another process that ended", &Entry{Result: ResultPending, host: s.host, pid: 1 << 30, svc: "x", until: time.Now().Add(time.Minute)}, false},
		{"another host", &Entry{Result: ResultPending, host: "elsewhere", pid: os.Getpid(), until: time.Now().Add(time.Minute)}, true},
	} {
		s.mu.Lock()
		got := s.sendingElsewhere(tt.e)
		s.mu.Unlock()
		if got != tt.want {
			t.Errorf("%s: sending elsewhere = %v, want %v", tt.name, got, tt.want)
		}
	}
}

package approvals

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// TestDecisionsKeyedByAgentIdentity: decisions made on an agent given as
// a URL (named after its host:port), one written before the journal kept
// URLs, are found, shown and reconciled under the name the same URL has
// once it is configured as "deployer".
func TestDecisionsKeyedByAgentIdentity(t *testing.T) {
	fx := newFixture(t)
	u, _ := url.Parse(fx.ag.srv.URL)
	host := u.Host
	fx.snd.add(t, host, fx.ag.srv.URL, "")
	fx.snd.add(t, "deployer", fx.ag.srv.URL, "")
	fx.svc.Close()
	byURL, err := Open(Options{JournalPath: fx.path, Sender: fx.snd, Approver: "ops@test", SendTimeout: 300 * time.Millisecond,
		Agents: []Agent{{Name: host, URL: fx.ag.srv.URL}}})
	if err != nil {
		t.Fatal(err)
	}
	t1 := fx.start(t, "ask")
	t1.Key.Agent = host
	d, err := byURL.Prepare(byURL.ItemFor(t1), Input{Kind: KindReply, Text: "main"})
	if err != nil {
		t.Fatal(err)
	}
	fx.ag.holdBefore.Store(true) // never delivered: the outcome is unknown
	if out := byURL.Send(context.Background(), d); out.Result != ResultUnknown {
		t.Fatalf("held send: %s/%s %v", out.Result, out.Problem, out.Err)
	}
	fx.ag.holdBefore.Store(false)
	byURL.Close()
	// A decision an older a2atop wrote: name only, no URL, no outcome.
	t2 := fx.start(t, "ask")
	old := fmt.Sprintf(`{"v":1,"type":"decision","id":"old-1","at":"2026-11-29T20:00:00Z","agent":%q,"task":%q,"kind":"reply","prompt":%q,"state":"TASK_STATE_INPUT_REQUIRED","approver":"ops@test","attempt":1}`+"\n",
		host, t2.Key.ID, PromptOf(t2.Snapshot))
	f, _ := os.OpenFile(fx.path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(old)
	f.Close()

	svc, err := Open(Options{JournalPath: fx.path, Sender: fx.snd, Approver: "ops@test",
		Agents: []Agent{{Name: "deployer", URL: fx.ag.srv.URL + "/"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	for _, e := range svc.Journal() {
		if e.Agent != "deployer" || e.RecordedAs != host {
			t.Fatalf("entry %s: agent %q recorded as %q", e.MessageID, e.Agent, e.RecordedAs)
		}
		if e.MessageID == "old-1" && !strings.Contains(e.AgentNote, "matched to deployer by its URL") {
			t.Fatalf("the old record's note: %q", e.AgentNote)
		}
	}
	for _, mt := range []*struct {
		id     a2a.TaskID
		prompt string
	}{{t1.Key.ID, d.Prompt}, {t2.Key.ID, PromptOf(t2.Snapshot)}} {
		if _, ok := svc.Prior("deployer", mt.id, mt.prompt); !ok {
			t.Fatalf("no prior decision for deployer · %s", mt.id)
		}
	}
	t1.Key.Agent = "deployer"
	if _, err := svc.Prepare(svc.ItemFor(t1), Input{Kind: KindReply, Text: "again"}); !errors.Is(err, ErrOutcomeOpen) {
		t.Fatalf("a new decision on the open prompt, by the new name: %v", err)
	}
	rs := svc.Reconcile(context.Background())
	if len(rs) != 2 {
		t.Fatalf("reconcile = %+v", rs)
	}
	for _, o := range rs {
		if o.Result != ResultNotDelivered || o.Err != nil || o.Agent != "deployer" {
			t.Fatalf("reconcile %s: %s %v (agent %q)", o.MessageID, o.Result, o.Err, o.Agent)
		}
	}
}

// TestIdentityIsURLAndTenant: one URL with two tenants is two agents; a
// URL differing only in case of the host or a trailing slash is one.
func TestIdentityIsURLAndTenant(t *testing.T) {
	if identity("HTTP://Host:1/a/", "") != identity("http://host:1/a", "") {
		t.Error("scheme/host case or a trailing slash makes another agent")
	}
	if identity("http://host:1", "t1") == identity("http://host:1", "t2") {
		t.Error("two tenants of one URL are one agent")
	}
	b := newAgentBook([]Agent{{Name: "a", URL: "http://h:1", Tenant: "t1"}, {Name: "b", URL: "http://h:1", Tenant: "t2"}})
	if r := b.resolve("old-name", "http://h:1/", "t2"); r.name != "b" {
		t.Errorf("resolve by URL and tenant = %+v", r)
	}
	if r := b.resolve("h:1", "", ""); r.name != "h:1" || !strings.Contains(r.note, "not a configured agent") {
		t.Errorf("a host with two configured agents matched one: %+v", r)
	}
}

// TestUnconfiguredServiceReadsRecordsWithURLs: a Service given no agents
// (the demo, tests) keys a configured writer's decisions by the name the
// records give with their URL.
func TestUnconfiguredServiceReadsRecordsWithURLs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	r := decisionRecord("m1")
	r.URL = "http://127.0.0.1:9"
	appendRecords(t, path, r)
	svc, err := Open(Options{JournalPath: path, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := svc.Prior("deployer", "t1", "p1"); !ok {
		t.Fatal("the decision is not found by its name")
	}
}

package cli

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/demo"
)

// TestServeRefusesABrokenChain: `a2atop serve` on a journal one of whose
// records was removed does not start, and says where and what to do;
// with --accept-broken-chain it serves, the journal records that, and
// `journal verify` shows the break as accepted (still exit 1: the
// history before it is not proven).
func TestServeRefusesABrokenChain(t *testing.T) {
	dir := isolate(t)
	agents := startDemo(t, demo.Options{NoPlanner: true})
	cfg := writeHubConfig(t, dir, agents[:1], time.Second)
	journal := filepath.Join(dir, "hub-journal.jsonl")
	chainJournal(t, journal, 5, nil)
	lines := readLines(t, journal)
	writeLines(t, journal, append(lines[:2:2], lines[3:]...))

	code, out, errOut := runCmd(context.Background(), "serve", "--config", cfg, "--listen", "127.0.0.1:0")
	if code != exitFailed || !strings.Contains(errOut, "line 3 (removed)") || !strings.Contains(errOut, "--accept-broken-chain") {
		t.Fatalf("serve on a broken chain: %d\n%s%s", code, out, errOut)
	}
	startHub(t, cfg, "--accept-broken-chain")
	code, out = verify(t, journal)
	if code != exitFailed || !strings.Contains(out, "line 3 (removed)") || !strings.Contains(out, "(accepted at line 5 by a2atop serve at ") {
		t.Fatalf("verify after --accept-broken-chain: %d %s", code, out)
	}
}

// TestServeSignsWithTheKeyItPublishes: the real `a2atop serve` publishes
// in GET /v1/me (over HTTP, with an operator's token) the key that
// `serve --print-key` prints; an approval through it is journaled and,
// once the hub stops, `journal verify --key` with that key finds every
// checkpoint signed by it, the last one written at shutdown.
func TestServeSignsWithTheKeyItPublishes(t *testing.T) {
	dir := isolate(t)
	agents := startDemo(t, demo.Options{NoPlanner: true, Timings: quick})
	cfg := writeHubConfig(t, dir, agents, 200*time.Millisecond)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--config", cfg, "--listen", "127.0.0.1:0"}, Streams{Out: &out, Err: &errOut})
	}()
	var url string
	eventually(t, "the hub listens", func() bool {
		m := hubLine.FindStringSubmatch(out.String())
		if m != nil {
			url = m[1]
		}
		return m != nil
	})
	req, _ := http.NewRequest(http.MethodGet, url+"/v1/me", nil)
	req.Header.Set("Authorization", "Bearer "+tokenOf("alice"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var me struct {
		JournalKey string `json:"journalKey"`
	}
	err = json.NewDecoder(resp.Body).Decode(&me)
	resp.Body.Close()
	if err != nil || !strings.HasPrefix(me.JournalKey, "ed25519:") {
		t.Fatalf("GET /v1/me: %v %+v", err, me)
	}
	if code, printed, _ := runCmd(context.Background(), "serve", "--print-key", "--config", cfg); code != exitOK || !strings.Contains(printed, "\n"+me.JournalKey+"\n") {
		t.Fatalf("serve --print-key prints another key than /v1/me's %s:\n%s", me.JournalKey, printed)
	}

	deploy := waitingTask(t, agents, demo.Deployer, "deploy 9f3c2e1 to staging", a2a.TaskStateAuthRequired)
	t.Setenv("A2ATOP_HUB_TOKEN", tokenOf("alice"))
	eventually(t, "the approval through the hub, once it holds the task", func() bool {
		code, o, e := runCmd(context.Background(), "reply", "--hub", url, demo.Deployer, string(deploy), "--approve")
		if code != exitOK && !strings.Contains(o+e, "task not found") && !strings.Contains(o+e, "no longer waits for an answer") { // the hub's fleet has not caught up
			t.Fatalf("reply --hub --approve: %d %s%s", code, o, e)
		}
		return code == exitOK
	})
	cancel()
	if code := <-done; code != exitOK {
		t.Fatalf("serve = %d: %s", code, errOut.String())
	}
	keyFile := filepath.Join(dir, "hub.pub")
	if err := os.WriteFile(keyFile, []byte(me.JournalKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, vout := verify(t, "--key", keyFile, filepath.Join(dir, "hub-journal.jsonl"))
	if code != exitOK || !strings.Contains(vout, "checkpoints: 1 verify with "+me.JournalKey+" (given with --key)") || strings.Contains(vout, "not signed yet") {
		t.Fatalf("verify of the hub's journal with the key of /v1/me: %d %s", code, vout)
	}
}

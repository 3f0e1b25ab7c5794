package cli

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/nats-io/nats-server/v2/server"

	"a2atop/approvals"
	"a2atop/approvals/jetstore"
)

// startJetStream runs a real one-node nats-server with JetStream on a
// loopback port, in this process, and returns its client URL.
func startJetStream(t *testing.T) string {
	t.Helper()
	return jetStreamOn(t, t.TempDir(), server.RANDOM_PORT).ClientURL()
}

// jetStreamOn is startJetStream keeping its state in dir, on port
// (server.RANDOM_PORT: one at random): stopped, it starts again with
// the same record on the same port.
func jetStreamOn(t *testing.T, dir string, port int) *server.Server {
	t.Helper()
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: port, JetStream: true,
		StoreDir: dir, NoSigs: true, NoLog: true})
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats-server did not start")
	}
	t.Cleanup(s.Shutdown)
	return s
}

// TestJournalVerifyOnTheTeamsRecord: a hub's signed file journal is
// migrated into a real JetStream record with `journal migrate`, and a
// Service on the record appends two lines of its own; `journal verify`
// on the config that names the record reads it and says what it
// checked: the lines in the stream's order without a gap, the migrated
// lines' chain and checkpoints (with the hub's key), and that the
// record's own lines are not chained. A config whose record is the
// hubs' embedded cluster is refused in words.
func TestJournalVerifyOnTheTeamsRecord(t *testing.T) {
	dir := isolate(t)
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	path := filepath.Join(dir, "journal.jsonl")
	chainJournal(t, path, 7, key) // 7 notes, a checkpoint after the 5th, one at close: 9 lines
	keyFile := filepath.Join(dir, "hub.pub")
	if err := os.WriteFile(keyFile, approvals.PublicKeyPEM(key.Public().(ed25519.PublicKey)), 0o600); err != nil {
		t.Fatal(err)
	}
	url := startJetStream(t)
	cfg := filepath.Join(dir, "hub.toml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf("journal_path = %q\n", path)), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runCmd(context.Background(), "journal", "migrate", "--config", cfg, "--to", url, "--replicas", "1"); code != exitOK {
		t.Fatalf("journal migrate = %d\n%s%s", code, out, errOut)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := jetstore.Open(ctx, jetstore.Config{URLs: []string{url}, Replicas: 1})
	if err != nil {
		t.Fatal(err)
	}
	j, err := st.Journal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := approvals.Open(approvals.Options{Shared: j})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if err := svc.NoteLeft("deployer", a2a.TaskID(fmt.Sprint("new-", i)), a2a.TaskStateInputRequired, a2a.TaskStateWorking, "n"); err != nil {
			t.Fatal(err)
		}
	}
	svc.Close()
	st.Close()
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf("journal_path = %q\n[hub.store]\nnats = [%q]\nreplicas = 1\n", path, url)), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out := verify(t, "--config", cfg, "--key", keyFile)
	for _, want := range []string{
		"11 lines, read in the stream's order, numbered 1 to 11 without a gap",
		"lines 1 to 9 were migrated from a file journal and carry its hash chain",
		"chain verified: 9 records from line 1",
		"(given with --key)",
		"lines 10 to 11 are the record's own: not hash-chained and not signed",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("journal verify on the team's record: missing %q", want)
		}
	}
	if code != exitOK {
		t.Errorf("journal verify = %d, want %d", code, exitOK)
	}
	other, _, _ := ed25519.GenerateKey(rand.Reader)
	if err := os.WriteFile(keyFile, approvals.PublicKeyPEM(other), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out := verify(t, "--config", cfg, "--key", keyFile); code != exitFailed || !strings.Contains(out, "signature") {
		t.Errorf("another key: %d %s, want the migrated checkpoints refused", code, out)
	}
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf("journal_path = %q\n[hub]\ncluster_listen = \"127.0.0.1:6222\"\npeers = [\"127.0.0.1:6223\"]\n", path)), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out := verify(t, "--config", cfg); code != exitFailed || !strings.Contains(out, "embedded NATS cluster") || !strings.Contains(out, "hub.toml:3") {
		t.Errorf("an embedded record: %d %s, want it refused in words at its line", code, out)
	}
}

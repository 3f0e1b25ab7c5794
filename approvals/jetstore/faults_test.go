package jetstore_test

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"a2atop/approvals"
	"a2atop/approvals/jetstore"
)

// startServer runs one real NATS server on a random loopback port.
func startServer(t *testing.T, js bool) string {
	t.Helper()
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT, JetStream: js,
		StoreDir: t.TempDir(), NoSigs: true, NoLog: true})
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("the NATS server did not start")
	}
	t.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
	return s.ClientURL()
}

func open(t *testing.T, c jetstore.Config) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c.StartWait = 2 * time.Second
	st, err := jetstore.Open(ctx, c)
	if err != nil {
		return err
	}
	defer st.Close()
	j, err := st.Journal(ctx)
	if err == nil {
		j.Close()
	}
	return err
}

// TestRefusedAtStart: what a hub cannot keep its record on is refused
// when it starts, in words that name the server and the reason.
func TestRefusedAtStart(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "nats://" + ln.Addr().String()
	ln.Close()
	plain := startServer(t, false)
	single := startServer(t, true)
	wrong := startServer(t, true)
	nc, err := nats.Connect(wrong)
	if err != nil {
		t.Fatal(err)
	}
	js, _ := jetstream.New(nc)
	if _, err := js.CreateStream(context.Background(), jetstream.StreamConfig{Name: jetstore.StreamName,
		Subjects: []string{"a2atop.journal.>"}, Storage: jetstream.MemoryStorage}); err != nil {
		t.Fatal(err)
	}
	nc.Close()
	newer := startServer(t, true)
	nc, err = nats.Connect(newer)
	if err != nil {
		t.Fatal(err)
	}
	js, _ = jetstream.New(nc)
	if _, err := js.CreateStream(context.Background(), jetstream.StreamConfig{Name: jetstore.StreamName,
		Subjects: []string{"a2atop.journal.>"}, Storage: jetstream.FileStorage, Replicas: 1, DenyDelete: true, DenyPurge: true,
		Metadata: map[string]string{"a2atop_format": "3"}}); err != nil {
		t.Fatal(err)
	}
	nc.Close()
	short := startServer(t, true)
	nc, err = nats.Connect(short)
	if err != nil {
		t.Fatal(err)
	}
	js, _ = jetstream.New(nc)
	if _, err := js.CreateStream(context.Background(), jetstream.StreamConfig{Name: jetstore.StreamName,
		Subjects: []string{"a2atop.journal.>"}, Storage: jetstream.FileStorage, Replicas: 1, DenyDelete: true, DenyPurge: true,
		Duplicates: time.Second}); err != nil {
		t.Fatal(err)
	}
	nc.Close()
	tests := []struct {
		name string
		c    jetstore.Config
		want []string
	}{
		{"unreachable", jetstore.Config{URLs: []string{closed}}, []string{closed, "connection refused"}},
		{"no jetstream", jetstore.Config{URLs: []string{plain}}, []string{plain, "without JetStream"}},
		{"replicas", jetstore.Config{URLs: []string{single}, Replicas: 3}, []string{single, "cannot keep 3 replicas", "replicas"}},
		{"wrong stream", jetstore.Config{URLs: []string{wrong}, Replicas: 1}, []string{wrong, "storage", "File"}},
		{"short duplicates window", jetstore.Config{URLs: []string{short}, Replicas: 1}, []string{short, "duplicates window of 1s", "at least 2m0s"}},
		{"newer hubs' stream", jetstore.Config{URLs: []string{newer}, Replicas: 1}, []string{newer, "journal format 3", "reads format 2", "newer a2atop"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := open(t, tt.c)
			if err == nil {
				t.Fatal("opened; want it refused")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Fatalf("the refusal %q does not say %q", err, w)
				}
			}
		})
	}
	if err := open(t, jetstore.Config{URLs: []string{single}, Replicas: 1}); err != nil {
		t.Fatalf("one server, one replica: %v", err)
	}
}

// TestNewerRecordIsRefusedInWords: a record a newer a2atop wrote on the
// team's stream (format 3) is not guessed at: it is a damaged line that
// blocks decisions on its agent, saying why, as in the file journal.
func TestNewerRecordIsRefusedInWords(t *testing.T) {
	url := startServer(t, true)
	journalOn(t, url) // the stream, made as a hub makes it
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	line := `{"v":3,"type":"decision","id":"m1","at":"2026-12-01T10:00:00Z","agent":"deployer","task":"t1","prompt":"p","sum":"00000000"}`
	if _, err := js.Publish(context.Background(), "a2atop.journal.pnewer", []byte(line)); err != nil {
		t.Fatal(err)
	}
	svc, err := approvals.Open(approvals.Options{Shared: journalOn(t, url), ReadOnly: true, Agents: []approvals.Agent{{Name: "deployer", URL: "http://127.0.0.1:1"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	bl := svc.Blocking()
	if len(bl) != 1 || !strings.Contains(bl[0].Reason, "unknown format version 3") || bl[0].Line != 1 {
		t.Fatalf("blocking %+v, want line 1 refused as an unknown format version", bl)
	}
	if err := svc.Blocked("deployer"); err == nil {
		t.Fatal("decisions on the agent are not blocked")
	}
}

//go:build unix

package credential

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"a2atop/internal/agenttest"
	"a2atop/internal/testcert"
)

// A client certificate's file replaced by a link to a named pipe is not
// waited on at the next handshake: the previous certificate is presented
// and the note names the file and why.
func TestClientCertificateFileThatIsNotARegularFile(t *testing.T) {
	ca := testcert.NewCA(t, "clients")
	first := ca.Client(t, "first")
	certFile, keyFile := testcert.WriteFiles(t, t.TempDir(), "a2atop", first)
	cc := newClientCert(certFile, keyFile, nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if cc.current() == nil {
		t.Fatalf("no certificate from good files: %s", cc.note())
	}
	agenttest.PlantPipe(t, certFile)
	done := make(chan *clientCertNote, 1)
	go func() { cur := cc.current(); done <- &clientCertNote{cur != nil, cc.note()} }()
	select {
	case got := <-done:
		if !got.presented || !strings.Contains(got.note, certFile) || !strings.Contains(got.note, "not a regular file") {
			t.Errorf("presented %v, note %q; want the previous certificate and the file and why", got.presented, got.note)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the handshake's read of the certificate file is still waiting after 30s")
	}
}

type clientCertNote struct {
	presented bool
	note      string
}

// The device flow's stored sign-in is a state file: a symbolic link
// planted at its path (to another user's file, to /dev/zero) and a named
// pipe are refused at once, with the file and the reason; storing a
// sign-in then replaces the link, never writing through it.
func TestStoredSignInPlanted(t *testing.T) {
	for _, plant := range []string{"link to a sign-in", "link to /dev/zero", "named pipe"} {
		t.Run(plant, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "tokens")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "a.json")
			victim := filepath.Join(t.TempDir(), "victim.json")
			writeFile(t, victim, `{"refresh_token":"planted-refresh","saved_at":"2026-01-01T00:00:00Z"}`)
			switch plant {
			case "link to a sign-in":
				must(t, os.Symlink(victim, path))
			case "link to /dev/zero":
				must(t, os.Symlink("/dev/zero", path))
			default:
				if err := syscall.Mkfifo(path, 0o600); err != nil {
					t.Skipf("no named pipes here: %v", err)
				}
			}
			st := newRefreshStore(path)
			done := make(chan error, 1)
			go func() { _, err := st.load(); done <- err }()
			var err error
			select {
			case err = <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("the stored sign-in is still being read after 30s")
			}
			if err == nil || !strings.Contains(err.Error(), path) {
				t.Fatalf("load = %v; want a refusal naming %s", err, path)
			}
			if plant == "named pipe" {
				return
			}
			must(t, st.save(storedToken{RefreshToken: "mine", SavedAt: time.Now()}))
			if b, _ := os.ReadFile(victim); !strings.Contains(string(b), "planted-refresh") {
				t.Errorf("the link's target was written: %s", b)
			}
			if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
				t.Errorf("after save, %s is %v (%v); want a regular file of its own", path, fi.Mode(), err)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

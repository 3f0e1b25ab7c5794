package a2aclient

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"a2atop/internal/sdktest"
	"a2atop/model"
)

// rotating is an agent's token check whose accepted token can change,
// as when an operator rotates it; it counts refusals per method.
type rotating struct {
	mu      sync.Mutex
	want    []string
	refused int
	sends   int // SendMessage requests, accepted or not
}

func (r *rotating) set(toks ...string) { r.mu.Lock(); r.want = toks; r.mu.Unlock() }

func (r *rotating) counts() (refused, sends int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.refused, r.sends
}

func (r *rotating) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if strings.HasPrefix(req.URL.Path, "/.well-known/") {
			next.ServeHTTP(w, req)
			return
		}
		body := peekBody(req)
		r.mu.Lock()
		ok := false
		for _, w := range r.want {
			ok = ok || req.Header.Get("Authorization") == "Bearer "+w
		}
		if strings.Contains(body, `"SendMessage"`) {
			r.sends++
		}
		if !ok {
			r.refused++
		}
		r.mu.Unlock()
		if !ok {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, req)
	})
}

// noUnauthorized fails when any health event of agent said unauthorized.
func noUnauthorized(t *testing.T, evs []model.Event, agent string) {
	t.Helper()
	for _, ev := range evs {
		if ev.Kind == model.EventHealth && ev.Agent == agent && (ev.Health.State == model.HealthUnauthorized || strings.Contains(ev.Health.Err, "401")) {
			t.Fatalf("the row showed %s %q", ev.Health.State, ev.Health.Err)
		}
	}
}

// A token file rewritten while a2atop runs, in place or by a rename: the
// next calls carry the new token without a restart, and the one call
// that meets the agent's rotation first is retried once with it.
func TestTokenFileRewrittenWhileRunning(t *testing.T) {
	for _, how := range []string{"in-place", "rename"} {
		t.Run(how, func(t *testing.T) {
			rot := &rotating{want: []string{"tok-one-1111"}}
			a := sdktest.Start(t, sdktest.JSONRPC, true, rot.wrap)
			dir := t.TempDir()
			path := filepath.Join(dir, "token")
			writeFile(t, path, "tok-one-1111\n")
			o := fast("a", a.URL())
			o.Auth = AuthOptions{Type: AuthBearer, Token: Secret{File: path}}
			_, c := runManager(t, []AgentOptions{o}, Options{})
			id := a.CreateInStore(t, a2a.TaskStateInputRequired)
			c.waitFor(t, "the task with the first token", 5*time.Second, func(evs []model.Event) bool { return hasTask(evs, "a", id, "") })
			if how == "rename" {
				writeFile(t, path+".new", "tok-two-2222\n")
				if err := os.Rename(path+".new", path); err != nil {
					t.Fatal(err)
				}
			} else {
				// In place, with the same size and time: only the agent's
				// refusal makes a2atop read the file again.
				rewriteUnseen(t, path, "tok-two-2222\n")
			}
			rot.set("tok-two-2222")
			before := len(c.snapshot())
			id2 := a.CreateInStore(t, a2a.TaskStateInputRequired)
			c.waitFor(t, "the task with the second token", 5*time.Second, func(evs []model.Event) bool { return hasTask(evs, "a", id2, "") })
			c.waitFor(t, "a few more rounds", 5*time.Second, func(evs []model.Event) bool { return len(evs) > before+10 })
			noUnauthorized(t, c.snapshot(), "a")
		})
	}
}

// A credential command whose output changes: its token is kept until the
// agent refuses it (no expiry given), then the command runs again and the
// call is retried once; a command that says when its token expires is run
// again before then.
func TestCredentialCommandOutputChanges(t *testing.T) {
	t.Parallel() // it waits out a token's expiry
	for _, shape := range []string{"plain", "exec-credential"} {
		t.Run(shape, func(t *testing.T) {
			rot := &rotating{want: []string{"cmd-one-1111"}}
			a := sdktest.Start(t, sdktest.JSONRPC, true, rot.wrap)
			dir := t.TempDir()
			src, runs := filepath.Join(dir, "current"), filepath.Join(dir, "runs")
			writeFile(t, src, "cmd-one-1111")
			script := `echo run >> "$2"; cat "$1"`
			if shape == "exec-credential" {
				script = `echo run >> "$2"; exp=$(date -u -d "@$(( $(date +%s) + 3 ))" +%Y-%m-%dT%H:%M:%SZ); ` +
					`printf '{"kind":"ExecCredential","status":{"token":"%s","expirationTimestamp":"%s"}}' "$(cat "$1")" "$exp"`
			}
			o := fast("a", a.URL())
			o.Auth = AuthOptions{Type: AuthCommand, Command: []string{"sh", "-c", script, "cred", src, runs}}
			_, c := runManager(t, []AgentOptions{o}, Options{})
			id := a.CreateInStore(t, a2a.TaskStateInputRequired)
			c.waitFor(t, "the task with the command's token", 5*time.Second, func(evs []model.Event) bool { return hasTask(evs, "a", id, "") })
			writeFile(t, src, "cmd-two-2222")
			if shape == "exec-credential" {
				// The agent takes both until the old token's expiry has
				// passed: by then the command ran again, before any refusal.
				rot.set("cmd-one-1111", "cmd-two-2222")
				time.Sleep(3 * time.Second)
			}
			rot.set("cmd-two-2222")
			id2 := a.CreateInStore(t, a2a.TaskStateInputRequired)
			c.waitFor(t, "the task with the new output", 8*time.Second, func(evs []model.Event) bool { return hasTask(evs, "a", id2, "") })
			noUnauthorized(t, c.snapshot(), "a")
			b, _ := os.ReadFile(runs)
			n := strings.Count(string(b), "run")
			if n < 2 || n > 12 {
				t.Errorf("the command ran %d times; want it cached between runs", n)
			}
			refused, _ := rot.counts()
			if shape == "plain" && refused > 4 {
				t.Errorf("%d refused calls: a refusal should rerun the command once", refused)
			}
			if shape == "exec-credential" && refused != 0 {
				t.Errorf("%d refused calls: the command should run again before its token expires", refused)
			}
		})
	}
}

// A reply refused 401 is not sent again by the retry layer: a reply goes
// through the at-most-once path of approvals, never resent blindly.
func TestReplyRefused401IsNotResent(t *testing.T) {
	rot := &rotating{want: []string{"tok-reply-1111"}}
	a := sdktest.Start(t, sdktest.JSONRPC, false, rot.wrap)
	dir := t.TempDir()
	path := filepath.Join(dir, "token")
	writeFile(t, path, "tok-reply-1111")
	o := fast("a", a.URL())
	o.Auth = AuthOptions{Type: AuthBearer, Token: Secret{File: path}}
	m := New([]AgentOptions{o}, Options{})
	id := a.CreateInStore(t, a2a.TaskStateInputRequired)
	if _, err := m.Get(t.Context(), "a", id, 0, false); err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, "tok-reply-2222") // a fresh token exists: a retry would succeed
	rot.set("tok-reply-3333")            // but the agent refuses both
	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("main"))
	msg.TaskID = id
	_, err := m.Reply(t.Context(), "a", msg)
	if err == nil || !strings.Contains(Describe(err), "unauthorized") {
		t.Fatalf("Reply = %v, want unauthorized", err)
	}
	if _, sends := rot.counts(); sends != 1 {
		t.Fatalf("the agent received %d SendMessage requests for one reply", sends)
	}
}

// peekBody reads a request's body and puts it back.
func peekBody(r *http.Request) string {
	if r.Body == nil {
		return ""
	}
	b, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(b))
	return string(b)
}

// The same over gRPC: a token file rewritten while running, and an agent
// that takes only the new token. The unary read that meets the rotation
// first is retried once with the re-read file; streams refused drop the
// token they carried. The row never says unauthorized.
func TestGRPCTokenRotationIsRetriedOnce(t *testing.T) {
	rot := &rotating{want: []string{"grpc-one-1111"}}
	check := func(ctx context.Context) error {
		md, _ := metadata.FromIncomingContext(ctx)
		got := strings.Join(md.Get("authorization"), "")
		rot.mu.Lock()
		defer rot.mu.Unlock()
		for _, w := range rot.want {
			if got == "Bearer "+w {
				return nil
			}
		}
		rot.refused++
		return status.Error(codes.Unauthenticated, "unauthorized")
	}
	a := sdktest.Start(t, sdktest.GRPC, true, nil)
	a.Stop()
	a.GOpts = []grpc.ServerOption{
		grpc.UnaryInterceptor(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			if err := check(ctx); err != nil {
				return nil, err
			}
			return h(ctx, req)
		}),
		grpc.StreamInterceptor(func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			if err := check(ss.Context()); err != nil {
				return err
			}
			return h(srv, ss)
		}),
	}
	a.Start()
	path := filepath.Join(t.TempDir(), "token")
	writeFile(t, path, "grpc-one-1111")
	o := fast("a", a.URL())
	o.AllowedHosts = []string{a.GAddr}
	o.Auth = AuthOptions{Type: AuthBearer, Token: Secret{File: path}}
	_, c := runManager(t, []AgentOptions{o}, Options{})
	id := a.CreateInStore(t, a2a.TaskStateInputRequired)
	c.waitFor(t, "the task over gRPC", 5*time.Second, func(evs []model.Event) bool { return hasTask(evs, "a", id, "") })
	rot.set("grpc-two-2222")
	rewriteUnseen(t, path, "grpc-two-2222")
	before := len(c.snapshot())
	id2 := a.CreateInStore(t, a2a.TaskStateInputRequired)
	c.waitFor(t, "the task with the new token", 5*time.Second, func(evs []model.Event) bool { return hasTask(evs, "a", id2, "") })
	c.waitFor(t, "a few more rounds", 5*time.Second, func(evs []model.Event) bool { return len(evs) > before+10 })
	noUnauthorized(t, c.snapshot(), "a")
}

// rewriteUnseen rewrites path in place with data of the same size and
// puts its modification time back, so that the file looks unchanged to
// a stat: only a refusal by the agent makes a2atop read it again (and so
// retry the call).
func rewriteUnseen(t *testing.T, path, data string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() != int64(len(data)) {
		t.Fatalf("rewriteUnseen: %d bytes for a file of %d", len(data), fi.Size())
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte(data), 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
}

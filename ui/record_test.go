package ui

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"

	"a2atop/approvals/jetstore"
	"a2atop/hubclient"
	"a2atop/internal/natsembed"
	"a2atop/ui/internal/uitest"
)

// teamRecord is the team's record in a real NATS JetStream server
// (internal/natsembed, the one the embedded cluster runs, in this
// process, on loopback), one server holding it: stopping it leaves the
// hub without its record; starting it again on the same port and state
// directory gives it back. A record opened in process (as the embedded
// cluster's hub connects) names no port in its words, and is not got
// back once stopped.
type teamRecord struct {
	t       *testing.T
	o       natsembed.Options
	srv     *natsembed.Server // nil while stopped
	journal *jetstore.Journal
}

const recordToken = "tok-nats-3a2b1c0d9e8f7a6b"

func startRecord(t *testing.T, inProcess bool) *teamRecord {
	t.Helper()
	r := &teamRecord{t: t, o: natsembed.Options{Dir: t.TempDir(), ClusterListen: "127.0.0.1:0", ClientListen: "127.0.0.1:0", Token: recordToken}}
	r.start()
	r.o.ClientListen = r.srv.Addr().String() // the same port when it starts again
	t.Cleanup(r.stop)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := jetstore.Config{URLs: []string{r.url()}, Token: recordToken, Replicas: 1, Name: "ui test hub"}
	if inProcess {
		c.URLs, c.InProcess = nil, r.srv
	}
	st, err := jetstore.Open(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if r.journal, err = st.Journal(ctx); err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *teamRecord) url() string { return "nats://" + r.o.ClientListen }

func (r *teamRecord) start() {
	r.t.Helper()
	s, err := natsembed.Start(r.o)
	if err != nil {
		r.t.Fatal(err)
	}
	r.srv = s
}

func (r *teamRecord) stop() {
	if r.srv != nil {
		r.srv.Stop()
		r.srv = nil
	}
}

// recordSays waits until the client says the hub can (or cannot) reach
// the team's record: the hub looks every second and takes two failed
// looks for a loss.
func recordSays(t *testing.T, cl *hubclient.Client, reachable bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		ch := cl.Changed()
		if ok, _, _ := cl.RecordReachable(); ok == reachable {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 60s the client says the team's record is reachable %v, want %v", !reachable, reachable)
		}
		select {
		case <-ch:
		case <-time.After(time.Second):
		}
	}
}

// TestTheRecordLostIsSaidAndDecisionsRefused: the hub's record (NATS
// JetStream) goes away while the hub stays up; the dashboard says so
// under the header (since when, that decisions are refused and nothing
// is sent, that the hub retries), a reply pressed says it before any
// editor opens, a cancel (which needs no record) still asks; with the
// record back the banner goes and the footer says so. The dashboard was
// told nothing before: only a decision sent came back refused.
func TestTheRecordLostIsSaidAndDecisionsRefused(t *testing.T) {
	rec := startRecord(t, false)
	th := newTeamHubOn(t, newClock(), rec.journal)
	m, cl := th.dashboard("alice")
	sized(m, 160, 40)
	if v := m.View(); strings.Contains(v, "team's record") {
		t.Fatalf("a banner of the record while it is reachable:\n%s", v)
	}
	rec.stop()
	recordSays(t, cl, false)
	tickNow(m)
	lines := strings.Split(m.View(), "\n")
	if !strings.HasPrefix(lines[1], "the team's record (NATS JetStream) is unreachable at hub "+th.addr+" since ") {
		t.Errorf("line 2 is not the record's banner: %q", lines[1])
	}
	if !strings.Contains(lines[2], "decisions are refused and nothing is sent; the hub retries by itself") {
		t.Errorf("line 3 does not say decisions are refused and the hub retries: %q", lines[2])
	}
	if strings.Contains(lines[0], "hub unreachable") || !strings.Contains(lines[0], "● hub") {
		t.Errorf("the header takes the hub for down: %q", lines[0])
	}
	press(m, "2")
	selectRow(t, m, idQuestion)
	press(m, "r")
	if inboxMode(m) || !strings.Contains(footerOf(m), "not sent: the team's record is unreachable at the hub since ") {
		t.Errorf("r with the record lost: dialog %v, footer %q", inboxMode(m), footerOf(m))
	}
	if f := footerOf(sized(m, 80, 24)); !strings.HasSuffix(f, "; retrying") {
		t.Errorf("at 80 columns the refusal is cut: %q", f)
	}
	sized(m, 160, 40)
	press(m, "1", "c")
	if !confirming(m) {
		t.Errorf("c with the record lost asks nothing (a cancel needs no record): footer %q", footerOf(m))
	}
	press(m, "n")

	rec.start()
	recordSays(t, cl, true)
	tickNow(m)
	if v := m.View(); strings.Contains(v, "team's record (NATS JetStream) is unreachable") {
		t.Errorf("the banner stayed after the record came back:\n%s", v)
	}
	if f := footerOf(m); !strings.Contains(f, "the team's record is back at the hub") {
		t.Errorf("nothing says the record is back: %q", f)
	}
}

// TestGoldenRecordLost: the banner of a hub that lost the team's record,
// at every size, on alice's tasks: each dashboard attaches while the
// record is away (its snapshot says so). The hub's port is drawn as
// 17717; the hub reaches its record in process, as the embedded
// cluster's does, so the reason names no port.
func TestGoldenRecordLost(t *testing.T) {
	rec := startRecord(t, true)
	th := newTeamHubOn(t, newClock(), rec.journal)
	watcher := th.operator("dave")
	th.run(watcher, nil)
	rec.stop()
	recordSays(t, watcher, false)
	_, hubPort, _ := net.SplitHostPort(th.addr)
	for _, sz := range goldenSizes {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			m, cl := th.dashboard("alice")
			if ok, _, _ := cl.RecordReachable(); ok {
				t.Fatal("alice's snapshot does not say the record is lost")
			}
			tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(sz[0], sz[1]))
			out := uitest.Frame(t, tm, "nothing is sent", sz[0], sz[1], true)
			if len(hubPort) != 5 {
				t.Skipf("the hub's port %s is not 5 digits: the frame cannot be drawn as the golden's", hubPort)
			}
			golden.RequireEqual(t, []byte(strings.ReplaceAll(out, th.addr, "127.0.0.1:17717")))
		})
	}
}

package cli

import (
	"fmt"
	"net"
	"testing"

	"github.com/nats-io/nats-server/v2/server"

	"a2atop/demo"
)

// TestSSHDashboardSaysTheRecordIsLost: a hub whose record is a real
// one-server JetStream serves alice's dashboard over SSH; the server
// stops: the SSH screen says what the local dashboard says, the team's
// record unreachable at the hub, since when, decisions refused and
// nothing sent, the hub retrying; the server starts again (same port,
// same record): the footer says the record is back. The SSH dashboard
// was told nothing before.
func TestSSHDashboardSaysTheRecordIsLost(t *testing.T) {
	dir := isolate(t)
	agents := startDemo(t, demo.Options{NoPlanner: true, Timings: quick})
	state := t.TempDir()
	js := jetStreamOn(t, state, server.RANDOM_PORT)
	port := js.Addr().(*net.TCPAddr).Port
	store := fmt.Sprintf("hub.store.nats = [%q]\nhub.store.replicas = 1\n", js.ClientURL())
	h, keys := startSSHHub(t, dir, agents, store)
	st := openTerm(t, h.dial(t, keys.alice), 160, 40, "tasks")
	st.wait(0, "alice via ssh")
	from := st.mark()
	js.Shutdown()
	js.WaitForShutdown()
	st.wait(from, "the team's record (NATS JetStream) is unreachable at hub ")
	st.wait(from, "decisions are refused and nothing is sent; the hub retries by itself")
	from = st.mark()
	jetStreamOn(t, state, port)
	st.wait(from, "the team's record is back at the hub (lost since ")
}

package hub_test

import (
	"context"
	"fmt"
	"net"
	"testing"
	"time"

	"a2atop/approvals/jetstore"
	"a2atop/hub"
	"a2atop/hubclient"
	"a2atop/internal/agenttest"
	"a2atop/internal/natsembed"
)

// natsCluster is a real three-node NATS cluster with JetStream, in this
// process, on loopback ports chosen at random and kept across a node's
// restart, each node's state in its own temporary directory.
type natsCluster struct {
	t     *testing.T
	opts  []natsembed.Options
	nodes []*natsembed.Server // nil while stopped
}

// freePorts picks n loopback ports nothing listens on.
func freePorts(t *testing.T, n int) []string {
	t.Helper()
	var out []string
	var lns []net.Listener
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns = append(lns, ln)
		out = append(out, ln.Addr().String())
	}
	for _, ln := range lns {
		ln.Close()
	}
	return out
}

func startNATSCluster(t *testing.T) *natsCluster {
	t.Helper()
	c := &natsCluster{t: t, nodes: make([]*natsembed.Server, 3)}
	// A free port picked here may be taken by another package's test
	// before the server binds it (go test runs two packages at once): a
	// cluster that does not start is started again on other ports, twice.
	var err error
	for try := 0; try < 3; try++ {
		if err = c.startOn(freePorts(t, 3), freePorts(t, 3)); err == nil {
			break
		}
		t.Logf("the NATS cluster did not start (%v); again on other ports", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for i := range c.nodes {
			c.stop(i)
		}
	})
	return c
}

// startOn starts the three nodes on routes and clients, or stops the
// ones it started and says why not.
func (c *natsCluster) startOn(routes, clients []string) error {
	c.opts = nil
	for i := range 3 {
		var peers []string
		for j := range 3 {
			if j != i {
				peers = append(peers, routes[j])
			}
		}
		c.opts = append(c.opts, natsembed.Options{Dir: c.t.TempDir(), ClusterListen: routes[i], Peers: peers, ClientListen: clients[i], Token: natsToken})
	}
	for i := range 3 {
		s, err := natsembed.Start(c.opts[i])
		if err != nil {
			for j := range i {
				c.stop(j)
			}
			return err
		}
		c.nodes[i] = s
	}
	return nil
}

func (c *natsCluster) start(i int) {
	c.t.Helper()
	s, err := natsembed.Start(c.opts[i])
	if err != nil {
		c.t.Fatal(err)
	}
	c.nodes[i] = s
}

func (c *natsCluster) stop(i int) {
	if c.nodes[i] != nil {
		c.nodes[i].Stop()
		c.nodes[i] = nil
	}
}

// urls are the nodes' client URLs.
func (c *natsCluster) urls() []string {
	var out []string
	for _, o := range c.opts {
		out = append(out, "nats://"+o.ClientListen)
	}
	return out
}

// leader is the node that leads the journal's stream, or -1.
func (c *natsCluster) leader() int {
	for i, n := range c.nodes {
		if n != nil && n.JetStreamIsStreamLeader("$G", jetstore.StreamName) {
			return i
		}
	}
	return -1
}

// shared opens a hub's connection to the cluster's journal.
func (c *natsCluster) shared(t *testing.T, name string) (*jetstore.Store, *jetstore.Journal) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	st, err := jetstore.Open(ctx, jetstore.Config{URLs: c.urls(), Token: natsToken, Replicas: 3, Name: name})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	j, err := st.Journal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return st, j
}

// natsToken is what the test cluster's clients present.
const natsToken = "tok-nats-8c7b6a5d4e3f2011"

// frank is an operator the shared-journal hubs add, with every role, so
// that three operators race on three hubs.
const frankToken = "tok-frank-5e4d3c2b1a09f8e7"

func withFrank(o *hub.Options) {
	o.Operators = append(o.Operators, hub.Operator{Name: "frank", TokenHash: hub.HashToken(frankToken),
		Roles: map[string][]hub.Role{hub.AllAgents: {hub.RoleWatch, hub.RoleAnswer, hub.RoleApprove, hub.RoleCancel}}})
}

func asFrank(o *hubclient.Options) { o.Token = frankToken }

// teamOnNATS is three hubs on one agent sharing the cluster's journal.
// Each hub takes mod after its shared record and operators.
func teamOnNATS(t *testing.T, c *natsCluster, ag *agenttest.Agent, mod ...func(*jetstore.Store, *hub.Options)) []*fixture {
	t.Helper()
	var fxs []*fixture
	for i := range 3 {
		st, j := c.shared(t, fmt.Sprintf("hub%d", i+1))
		fxs = append(fxs, newFixtureOn(t, ag, 100*time.Millisecond, withFrank, func(o *hub.Options) {
			o.Journal.Shared = j
			o.MaxRequestsPerOperator = 4 * raceBatch
			for _, m := range mod {
				m(st, o)
			}
		}))
	}
	return fxs
}

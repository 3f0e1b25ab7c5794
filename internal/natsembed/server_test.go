package natsembed_test

import (
	"context"
	"net"
	"testing"
	"time"

	"a2atop/approvals/jetstore"
	"a2atop/internal/natsembed"
)

// TestThreeNodesFormACluster: three embedded servers on loopback, each
// taking no client connections, form a JetStream cluster that keeps a
// journal of three replicas, reached in process.
func TestThreeNodesFormACluster(t *testing.T) {
	routes := freeAddrs(t, 3)
	var srvs []*natsembed.Server
	for i := range 3 {
		var peers []string
		for j := range 3 {
			if j != i {
				peers = append(peers, routes[j])
			}
		}
		s, err := natsembed.Start(natsembed.Options{Dir: t.TempDir(), ClusterListen: routes[i], Peers: peers})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Stop)
		srvs = append(srvs, s)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	errs := make(chan error, 3)
	for _, s := range srvs { // three hubs starting at once
		go func() { errs <- open(ctx, s) }()
	}
	for range srvs {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// freeAddrs picks n loopback addresses nothing listens on.
func freeAddrs(t *testing.T, n int) []string {
	t.Helper()
	var out []string
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ln.Addr().String())
		defer ln.Close()
	}
	return out
}

func open(ctx context.Context, s *natsembed.Server) error {
	st, err := jetstore.Open(ctx, jetstore.Config{InProcess: s, Token: s.Token(), Replicas: 3})
	if err != nil {
		return err
	}
	defer st.Close()
	j, err := st.Journal(ctx)
	if err != nil {
		return err
	}
	defer j.Close()
	_, err = st.Claims(ctx, 2*time.Minute)
	return err
}

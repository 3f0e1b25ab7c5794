package a2aclient

import (
	"crypto/tls"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdk "github.com/a2aproject/a2a-go/v2/a2aclient"
	grpcv1 "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"a2atop/internal/sdktest"
	"a2atop/internal/testcert"
	"a2atop/model"
)

// A card whose gRPC interface names the configured origin in its URL's
// authority but another endpoint G in its path: grpc.NewClient reads the
// scheme as a resolver and dials G. Whatever the form, the secrets never
// reach G, and a target that is not host:port is refused in words.
func TestGRPCTargetFormsNeverCarrySecretsElsewhere(t *testing.T) {
	for _, form := range []string{
		"passthrough://{A}/{G}",
		"dns://{A}/{G}",
		"passthrough:///{G}",
		"xds://{A}/{G}",
		"unix-abstract:{A}",
		"{A}/../{G}",
	} {
		t.Run(strings.NewReplacer("/", "_", "{", "", "}", "").Replace(form), func(t *testing.T) {
			g := sdktest.Start(t, sdktest.GRPC, true, nil) // the endpoint the target really names
			a := sdktest.Start(t, sdktest.JSONRPC, true, nil)
			a.Stop()
			target := strings.NewReplacer("{A}", a.Addr, "{G}", g.GAddr).Replace(form)
			a.Card.SupportedInterfaces = []*a2a.AgentInterface{a2a.NewAgentInterface(target, a2a.TransportProtocolGRPC)}
			a.Start()
			o := fast("a", a.URL())
			o.Headers = []Header{{Name: "Authorization", Value: "Bearer tok-grpc-leak"}, {Name: "X-Api-Key", Value: "key-grpc-leak"}}
			o.AllowedHosts = []string{a.Addr} // the authority is allowed; the endpoint is not
			_, c := runManager(t, []AgentOptions{o}, Options{})
			g.Send(t, "ask")
			c.waitFor(t, "the agent's row says the target is refused", 5*time.Second, func(evs []model.Event) bool {
				h := lastHealth(evs, "a")
				return h != nil && strings.Contains(h.Err, "a2atop dials only host:port")
			})
			time.Sleep(100 * time.Millisecond) // a few more rounds
			for _, s := range g.Icpt.Seen() {
				if strings.Contains(s, "leak") {
					t.Fatalf("a secret reached %s through the target %q: %q", g.GAddr, target, s)
				}
			}
		})
	}
}

// The targets a2atop dials still work, and get the secrets exactly when
// their endpoint is an allowed origin.
func TestGRPCPlainTargetsGetSecretsOnlyWhenAllowed(t *testing.T) {
	for _, tc := range []struct {
		form  string
		allow bool
	}{
		{"{G}", false}, {"{G}", true}, {"dns:///{G}", false}, {"dns:///{G}", true},
	} {
		t.Run(strings.ReplaceAll(tc.form, "/", "_")+map[bool]string{true: "-allowed", false: "-not"}[tc.allow], func(t *testing.T) {
			g := sdktest.Start(t, sdktest.GRPC, true, nil)
			g.Stop()
			g.Card.SupportedInterfaces[0].URL = strings.ReplaceAll(tc.form, "{G}", g.GAddr)
			g.Start()
			o := fast("g", g.URL())
			o.Headers = []Header{{Name: "Authorization", Value: "Bearer tok-plain"}}
			if tc.allow {
				o.AllowedHosts = []string{g.GAddr}
			}
			_, c := runManager(t, []AgentOptions{o}, Options{})
			id := g.Send(t, "ask")
			c.waitFor(t, "the task via gRPC", 5*time.Second, func(evs []model.Event) bool { return hasTask(evs, "g", id, "") })
			var with int
			for _, s := range g.Icpt.Seen() {
				if s == "Bearer tok-plain" {
					with++
				}
			}
			if tc.allow != (with > 0) {
				t.Errorf("allowed %v: %d calls carried the token (%v)", tc.allow, with, g.Icpt.Seen())
			}
		})
	}
}

// The connection guard stands alone: a connection whose dial options were
// built for an allowed endpoint but that dials another address sends no
// secret, because grpcSecrets reads where the connection was dialled, not
// what the card said.
func TestGRPCSecretsFollowTheDialledConnection(t *testing.T) {
	g := sdktest.Start(t, sdktest.GRPC, false, nil)
	a := sdktest.Start(t, sdktest.JSONRPC, false, nil)
	o := fast("a", a.URL()).withDefaults()
	o.Headers = []Header{{Name: "Authorization", Value: "Bearer tok-dialled"}}
	o.AllowedHosts = []string{a.Addr}
	c := newConn(o, 10, slog.New(slog.DiscardHandler))
	opts := c.grpcDialOptions(grpcEndpoint{hostPort: a.Addr}) // built for A, an allowed origin
	cc, err := grpc.NewClient("passthrough:///"+g.GAddr, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	tr := grpcv1.NewGRPCTransport(cc)
	_, _ = tr.GetTask(t.Context(), sdk.ServiceParams{}, &a2a.GetTaskRequest{ID: "t1"})
	seen := g.Icpt.Seen()
	if len(seen) == 0 {
		t.Fatal("the call did not reach G")
	}
	for _, s := range seen {
		if s != "" {
			t.Fatalf("G received %q over a connection dialled to it", s)
		}
	}
}

func TestParseGRPCTarget(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // host:port, "tls " prefix for TLS; "" for refused
	}{
		{"127.0.0.1:50051", "127.0.0.1:50051"},
		{"Agent.Example.com:443", "agent.example.com:443"},
		{"[::1]:50051", "[::1]:50051"},
		{"dns:///agent.example.com:50051", "agent.example.com:50051"},
		{"https://agent.example.com", "tls agent.example.com:443"},
		{"https://agent.example.com:8443/", "tls agent.example.com:8443"},
		{"http://agent.example.com:8080", "agent.example.com:8080"},
		{"https://agent.example.com/a2a/grpc", ""},
		{"dns://8.8.8.8/agent.example.com:50051", ""},
		{"passthrough://agent.example.com:443/evil.example.com:443", ""},
		{"passthrough:///evil.example.com:443", ""},
		{"unix:///tmp/a2a.sock", ""},
		{"unix:relative.sock", ""},
		{"unix-abstract:name", ""},
		{"xds:///agent", ""},
		{"localhost", ""},
		{"host:0", ""},
		{"host:99999", ""},
		{"host:port", ""},
		{"user@host:443", ""},
		{"https://user@agent.example.com", ""},
	} {
		ep, err := parseGRPCTarget(tc.in, false)
		got := ep.hostPort
		if ep.tls {
			got = "tls " + got
		}
		if err != nil {
			got = ""
			if !strings.Contains(err.Error(), "a2atop dials only host:port") {
				t.Errorf("%q: error %q does not say what is dialled", tc.in, err)
			}
		}
		if got != tc.want {
			t.Errorf("parseGRPCTarget(%q) = %q (%v), want %q", tc.in, got, err, tc.want)
		}
	}
}

// https configured: a bare host:port gRPC interface is dialled with TLS
// and gets the token; an http:// one is plain text and is not dialled at
// all, even with its host:port in allowed_hosts: the row says why.
func TestGRPCNeverDowngradesTLS(t *testing.T) {
	for _, plain := range []bool{false, true} {
		t.Run(map[bool]string{false: "tls", true: "plain"}[plain], func(t *testing.T) {
			ca := testcert.NewCA(t, "a2atop test")
			g := sdktest.Start(t, sdktest.GRPC, false, nil)
			g.Stop()
			if plain {
				g.Card.SupportedInterfaces[0].URL = "http://" + g.GAddr
			} else {
				g.GOpts = []grpc.ServerOption{grpc.Creds(credentials.NewTLS(ca.ServerConfig(t, nil)))}
			}
			g.Start()
			cardAddr := listenTLS(t, ca.ServerConfig(t, nil), g.Mux()) // the card, over https
			o := fast("g", "https://"+cardAddr)
			o.TLS = &tls.Config{RootCAs: ca.Pool()}
			o.Headers = []Header{{Name: "Authorization", Value: "Bearer tok-grpc-tls"}}
			o.AllowedHosts = []string{g.GAddr}
			_, c := runManager(t, []AgentOptions{o}, Options{})
			if plain {
				c.waitFor(t, "the row says why", 5*time.Second, func(evs []model.Event) bool {
					h := lastHealth(evs, "g")
					return h != nil && strings.Contains(h.Err, "GRPC without TLS http://"+g.GAddr) &&
						strings.Contains(h.Err, "a2atop sends nothing in clear text")
				})
				time.Sleep(300 * time.Millisecond)
				if seen := g.Icpt.Seen(); len(seen) > 0 {
					t.Fatalf("a call went to a plain-text gRPC interface: %q", seen)
				}
				return
			}
			c.waitFor(t, "a call reached the agent", 5*time.Second, func([]model.Event) bool { return len(g.Icpt.Seen()) > 0 })
			for _, s := range g.Icpt.Seen() {
				if s != "Bearer tok-grpc-tls" {
					t.Fatalf("a TLS call to an allowed host carried %q", s)
				}
			}
		})
	}
}

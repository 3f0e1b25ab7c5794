package a2aclient

import (
	"context"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"

	"a2atop/a2aclient/credential"
)

func TestChooseInterfaces(t *testing.T) {
	card := &a2a.AgentCard{SupportedInterfaces: []*a2a.AgentInterface{
		{URL: "http://h/rpc03", ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: "0.3"},
		{URL: "http://h/rest", ProtocolBinding: a2a.TransportProtocolHTTPJSON, ProtocolVersion: "1.0"},
		{URL: "h:9", ProtocolBinding: a2a.TransportProtocolGRPC, ProtocolVersion: "1.0"},
		{URL: "http://h/rpc", ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: "1.0"},
	}}
	for _, tc := range []struct {
		binding, protocol string
		want              []string
		err               bool
	}{
		{"auto", "auto", []string{"http://h/rpc03", "http://h/rest", "h:9", "http://h/rpc"}, false},
		{"", "", []string{"http://h/rpc03", "http://h/rest", "h:9", "http://h/rpc"}, false},
		{"jsonrpc", "auto", []string{"http://h/rpc03", "http://h/rpc"}, false},
		{"jsonrpc", "0.3", []string{"http://h/rpc03"}, false},
		{"rest", "1.0", []string{"http://h/rest"}, false},
		{"grpc", "", []string{"h:9"}, false},
		{"grpc", "0.3", nil, true},
	} {
		got, err := chooseInterfaces(card, tc.binding, tc.protocol)
		if (err != nil) != tc.err {
			t.Errorf("%s/%s: err = %v", tc.binding, tc.protocol, err)
			continue
		}
		var urls []string
		for _, i := range got {
			urls = append(urls, i.URL)
		}
		if fmt.Sprint(urls) != fmt.Sprint(tc.want) {
			t.Errorf("%s/%s = %v, want %v", tc.binding, tc.protocol, urls, tc.want)
		}
		if err != nil && !strings.Contains(err.Error(), "no compatible transports") {
			t.Errorf("error %q does not say what the card offers", err)
		}
	}
}

func TestAllowedOrigins(t *testing.T) {
	c := &conn{opts: AgentOptions{URL: "https://Agent.example.com/a2a", AllowedHosts: []string{"grpc.example.com:8443", "other.example.com"}}}
	c.origin = credential.OriginOf(c.opts.URL)
	for _, tc := range []struct {
		target string
		want   bool
	}{
		{"https://agent.example.com/x", true},
		{"https://agent.example.com:443/x", true},
		{"http://agent.example.com/x", false},     // another port: another origin
		{"http://agent.example.com:443/x", false}, // same host and port, plain text: another origin
		{"https://agent.example.com:8443/x", false},
		{"https://evil.example.com/x", false},
		{"https://grpc.example.com:8443", true},
		{"http://grpc.example.com:8443", false}, // allowed over https only: the configured url is https
		{"https://grpc.example.com:9000", false},
		{"https://other.example.com/x", true}, // a bare host allows any port
		{"https://agent.example.com.evil.net:443", false},
		{"ftp://agent.example.com:443", false},
	} {
		if got := c.allowed(credential.OriginOf(tc.target)); got != tc.want {
			t.Errorf("allowed(%q) = %v, want %v", tc.target, got, tc.want)
		}
	}
}

// Describe gives words a person can act on for each class of failure.
func TestDescribe(t *testing.T) {
	wrap := func(err error, status, code int) error {
		return &Error{Agent: "a", Op: "GetTask", URL: "http://h:1/rpc", Status: status, Code: code, Err: err}
	}
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{wrap(fmt.Errorf("failed to send HTTP request: %w", refused), 0, 0), "unreachable"},
		{wrap(fmt.Errorf("x: %w", x509.UnknownAuthorityError{}), 0, 0), "TLS failed"},
		{wrap(fmt.Errorf("unexpected HTTP status: 401 Unauthorized"), 401, 0), "unauthorized (HTTP 401)"},
		{wrap(fmt.Errorf("unexpected HTTP status: 403 Forbidden"), 403, 0), "forbidden (HTTP 403)"},
		{wrap(a2a.ErrUnauthenticated, 200, -31401), "unauthorized (code -31401)"},
		{&Error{Agent: "a", Op: "card", URL: "http://h:1/.well-known/agent-card.json", Status: 404,
			Err: &agentcard.ErrStatusNotOK{StatusCode: 404, Status: "404 Not Found"}}, "card not found (404 at http://h:1/.well-known/agent-card.json)"},
		{wrap(a2a.ErrVersionNotSupported, 200, -32009), "version not supported"},
		{wrap(fmt.Errorf("failed to decode response: %w", io.ErrUnexpectedEOF), 200, 0), "protocol error"},
		{wrap(fmt.Errorf("SSE stream error: %w", io.ErrUnexpectedEOF), 200, 0), "connection cut"},
		{wrap(fmt.Errorf("failed to decode response: %w", fmt.Errorf("%w: more than 8 bytes", ErrTooLarge)), 200, 0), "response too large"},
		{wrap(fmt.Errorf("x: %w", context.DeadlineExceeded), 0, 0), "timed out"},
		{wrap(a2a.NewError(a2a.ErrInternalError, "task execution is already in progress"), 200, -32603), "expects out-of-band authorization"},
		{wrap(a2a.ErrTaskNotFound, 200, -32001), "task not found"},
		{wrap(a2a.ErrTaskNotCancelable, 200, -32002), "cannot be canceled"},
		{errListDenied{wrap(a2a.ErrUnauthenticated, 200, -31401)}, "unauthorized"},
	} {
		if got := Describe(tc.err); !strings.Contains(got, tc.want) {
			t.Errorf("Describe(%v) = %q, want it to contain %q", tc.err, got, tc.want)
		}
	}
	if Describe(nil) != "" {
		t.Error("Describe(nil) is not empty")
	}
}

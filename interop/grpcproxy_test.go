package interop

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"path"
	"testing"

	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"google.golang.org/protobuf/proto"
)

// frontGRPC puts the proxy in front of the agent's gRPC listener too (an
// HTTP/2 cleartext reverse proxy on its own loopback port) and rewrites
// the card's gRPC interface to it. gRPC calls are counted under their
// method name ("ListTasks", "GetTask", ...) and SubscribeToTask and
// SendMessage calls on a task can be held like their HTTP counterparts.
// It returns the proxy's gRPC address (for AllowedHosts).
func (p *proxy) frontGRPC(t *testing.T, upstream string) string {
	t.Helper()
	var h2c http.Protocols
	h2c.SetUnencryptedHTTP2(true)
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.Out.URL.Scheme, r.Out.URL.Host = "http", upstream
		},
		Transport:      &http.Transport{Protocols: &h2c},
		FlushInterval:  -1, // stream responses as they come
		ModifyResponse: trailersOnly,
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Protocols: &h2c, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch op, id := p.inspectGRPC(r); op {
		case "SubscribeToTask":
			p.wait(id)
		case "SendMessage":
			if id != "" {
				p.wait(sendKey + id)
			}
		}
		rp.ServeHTTP(w, r)
	})}
	go srv.Serve(lis) //nolint:errcheck // ends with Close
	t.Cleanup(func() { p.releaseAll(); srv.Close() })
	addr := lis.Addr().String()
	p.mu.Lock()
	p.rewrites = append(p.rewrites, [2][]byte{[]byte(`"` + upstream + `"`), []byte(`"` + addr + `"`)})
	p.mu.Unlock()
	return addr
}

// inspectGRPC records a gRPC call under its method name and returns the
// operation the proxy may hold and its task id. The client sends one
// request message and half-closes, so the body can be read whole first.
func (p *proxy) inspectGRPC(r *http.Request) (op, id string) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	method := path.Base(r.URL.Path)
	var msg []byte
	if len(body) >= 5 && body[0] == 0 { // uncompressed length-prefixed message
		if n := binary.BigEndian.Uint32(body[1:5]); int(n) <= len(body)-5 {
			msg = body[5 : 5+n]
		}
	}
	switch method {
	case "SubscribeToTask":
		var req a2apb.SubscribeToTaskRequest
		if proto.Unmarshal(msg, &req) == nil {
			op, id = method, req.GetId()
		}
	case "SendMessage":
		var req a2apb.SendMessageRequest
		if proto.Unmarshal(msg, &req) == nil {
			op, id = method, req.GetMessage().GetTaskId()
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seen = append(p.seen, peerRequest{Kind: "grpc", What: r.URL.Path, Version: r.Header.Get("A2A-Version")})
	p.calls[method]++
	if op == "SubscribeToTask" {
		p.subs[id]++
	}
	return op, id
}

// trailersOnly turns a gRPC "Trailers-Only" answer (an error: grpc-status
// in the only HEADERS frame, which ends the stream) into headers plus
// trailers. Relayed as is, the proxy may flush the headers before it knows
// the body is empty, the stream then ends without trailers, and the client
// reads "server closed the stream without sending trailers" instead of the
// agent's error.
func trailersOnly(resp *http.Response) error {
	if resp.Header.Get("Grpc-Status") == "" {
		return nil
	}
	if resp.Trailer == nil {
		resp.Trailer = http.Header{}
	}
	for _, k := range []string{"Grpc-Status", "Grpc-Message", "Grpc-Status-Details-Bin"} {
		if v := resp.Header.Values(k); len(v) > 0 {
			resp.Trailer[k] = v
			resp.Header.Del(k)
		}
	}
	return nil
}

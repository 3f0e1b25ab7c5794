package credential

import (
	"context"
	"io"
	"net/http"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// A token can be refused before the expiry it came with: revoked, the
// agent's clock ahead, a key rotated. An idempotent read refused with
// HTTP 401 (or gRPC UNAUTHENTICATED) is sent once more with a fresh
// credential, when the credential says a fresh one may differ. Only the
// reads are: GetTask, ListTasks, SubscribeToTask and the card fetch. A
// message, a reply or an approval is never sent twice by this layer: it
// goes through the at-most-once path of the approvals journal, which
// reconciles an unknown outcome and retries only with the same messageId.
// The caller marks a read with Idempotent(ctx); nothing else is retried.

// Retry is the retry of a read refused 401 (UNAUTHENTICATED) for one
// agent's credential, on HTTP (Layer) and gRPC (GRPCUnary, GRPCStream).
type Retry struct {
	cred Credential // nil when the agent has none: nothing is retried
}

// NewRetry returns the retry of cred's refusals (cred may be nil).
func NewRetry(cred Credential) *Retry { return &Retry{cred: cred} }

type idempotentKey struct{}

// Idempotent returns ctx marked as carrying an idempotent read.
func Idempotent(ctx context.Context) context.Context {
	return context.WithValue(ctx, idempotentKey{}, true)
}

// isIdempotent reports whether ctx carries an idempotent read.
func isIdempotent(ctx context.Context) bool {
	v, _ := ctx.Value(idempotentKey{}).(bool)
	return v
}

// retryUnauthorized is the HTTP layer: below the probe (the call reports
// its last attempt), above the credential layer (which adds the fresh
// credential to the second attempt).
type retryUnauthorized struct {
	next http.RoundTripper
	c    *Retry
}

// Layer is the HTTP layer of the retry, above next.
func (c *Retry) Layer(next http.RoundTripper) http.RoundTripper {
	return retryUnauthorized{next: next, c: c}
}

// RoundTrip implements http.RoundTripper.
func (t retryUnauthorized) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusUnauthorized || t.c.cred == nil || !isIdempotent(req.Context()) {
		return resp, err
	}
	if req.Body != nil && req.GetBody == nil {
		return resp, nil // the body cannot be sent again
	}
	sent := ""
	if resp.Request != nil {
		sent = sentCredential(resp.Request.Header, t.c.cred.Names())
	}
	if !t.c.cred.Refused(sent) {
		return resp, nil
	}
	r2 := req.Clone(req.Context())
	if req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return resp, nil
		}
		r2.Body = body
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	return t.next.RoundTrip(r2)
}

// sentCredential is the credential's header value in h ("" when none).
func sentCredential(h http.Header, names []string) string {
	for _, n := range names {
		if v := h.Get(n); v != "" {
			return v
		}
	}
	return ""
}

// GRPCSent records, for one gRPC call, the credential the call's
// metadata carried and the error met getting it (the connection's
// per-call credentials set it).
type GRPCSent struct {
	mu    sync.Mutex
	value string
	err   error
}

type grpcSentKey struct{}

func withGRPCSent(ctx context.Context) (context.Context, *GRPCSent) {
	s := &GRPCSent{}
	return context.WithValue(ctx, grpcSentKey{}, s), s
}

// GRPCSentFrom is the record of the gRPC call of ctx, nil outside one.
func GRPCSentFrom(ctx context.Context) *GRPCSent {
	s, _ := ctx.Value(grpcSentKey{}).(*GRPCSent)
	return s
}

// Set records value, or err. A nil record records nothing.
func (s *GRPCSent) Set(value string, err error) {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.value, s.err = value, err
	s.mu.Unlock()
}

func (s *GRPCSent) get() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.value, s.err
}

// GRPCUnary sends an idempotent unary read once more when the agent
// answered UNAUTHENTICATED and the credential may have a fresh value; a
// call that failed because a2atop had no credential reports why.
func (c *Retry) GRPCUnary(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, inv grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	sctx, sent := withGRPCSent(ctx)
	err := inv(sctx, method, req, reply, cc, opts...)
	value, cerr := sent.get()
	switch {
	case cerr != nil:
		return cerr
	case err == nil || status.Code(err) != codes.Unauthenticated || c.cred == nil || !isIdempotent(ctx):
		return err
	case !c.cred.Refused(value):
		return err
	}
	sctx, sent = withGRPCSent(ctx)
	err = inv(sctx, method, req, reply, cc, opts...)
	if _, cerr := sent.get(); cerr != nil {
		return cerr
	}
	return err
}

// GRPCStream reports a stream that could not open because a2atop had
// no credential; a stream refused UNAUTHENTICATED drops the credential it
// carried, so that the watcher's next open carries a fresh one.
func (c *Retry) GRPCStream(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, st grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	sctx, sent := withGRPCSent(ctx)
	cs, err := st(sctx, desc, cc, method, opts...)
	if _, cerr := sent.get(); cerr != nil {
		return nil, cerr
	}
	if err != nil {
		return nil, err
	}
	return &credStream{ClientStream: cs, c: c, sent: sent}, nil
}

type credStream struct {
	grpc.ClientStream
	c    *Retry
	sent *GRPCSent
	once sync.Once
}

func (s *credStream) RecvMsg(m any) error {
	err := s.ClientStream.RecvMsg(m)
	if err != nil && status.Code(err) == codes.Unauthenticated && s.c.cred != nil {
		s.once.Do(func() {
			v, _ := s.sent.get()
			s.c.cred.Refused(v)
		})
	}
	return err
}

package a2aclient

import (
	"context"
	"errors"
	"io"
	"path"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdk "github.com/a2aproject/a2a-go/v2/a2aclient"
	"google.golang.org/grpc"
	"google.golang.org/grpc/status"

	"a2atop/model"
)

// authInterceptor adds the agent's secret headers to a call, but only when
// the interface the call goes to is on the configured URL's origin or in
// AllowedHosts: a card that points elsewhere does not get our token. The
// SDK's own AuthInterceptor acts only with a session id and card security
// requirements, so we write our own (sdk-notes).
type authInterceptor struct {
	sdk.PassthroughInterceptor
	c *conn
}

// Before implements sdk.CallInterceptor.
func (a *authInterceptor) Before(ctx context.Context, req *sdk.Request) (context.Context, any, error) {
	if _, ok := req.ServiceParams[a2a.SvcParamVersion]; !ok && len(req.ServiceParams.Get(a2a.SvcParamVersion)) == 0 {
		// The SDK always sets it; keep the guarantee if that ever changes.
		req.ServiceParams[a2a.SvcParamVersion] = []string{string(a2a.Version)}
	}
	if a.c.legacyREST.Load() {
		ctx = context.WithValue(ctx, refFixKey{}, newRefFix(req.Payload))
	}
	if len(a.c.opts.Headers) == 0 || !a.c.allowed(hostPort(req.BaseURL)) {
		return ctx, nil, nil
	}
	for _, h := range a.c.opts.Headers {
		req.ServiceParams.Append(h.Name, h.Value)
	}
	return ctx, nil, nil
}

// After implements sdk.CallInterceptor: on an A2A 0.3 HTTP+JSON
// interface it puts back the referenceTaskIds the SDK's decoding dropped
// (see refFix).
func (a *authInterceptor) After(ctx context.Context, resp *sdk.Response) error {
	if f := refFixFrom(ctx); f != nil && resp.Payload != nil {
		f.restore(resp.Payload)
	}
	return nil
}

// grpcUnary records gRPC calls in the capture ring and the call's probe.
func (c *conn) grpcUnary(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, inv grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	rec := &record{ex: newGRPCExchange(cc.Target(), method)}
	c.rt.ring.add(rec)
	start := time.Now()
	err := inv(ctx, method, req, reply, cc, opts...)
	c.finishGRPC(ctx, rec, start, err)
	return err
}

// grpcStream records gRPC stream opens and their ending error.
func (c *conn) grpcStream(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, st grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	rec := &record{ex: newGRPCExchange(cc.Target(), method)}
	c.rt.ring.add(rec)
	start := time.Now()
	cs, err := st(ctx, desc, cc, method, opts...)
	if err != nil {
		c.finishGRPC(ctx, rec, start, err)
		return nil, err
	}
	return &grpcStreamRec{ClientStream: cs, c: c, rec: rec, start: start, ctx: ctx}, nil
}

func (c *conn) finishGRPC(ctx context.Context, rec *record, start time.Time, err error) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	rec.ex.Duration = time.Since(start)
	if err != nil {
		rec.ex.Err = status.Convert(err).Code().String() + ": " + status.Convert(err).Message()
		probeFrom(ctx).setGRPC(status.Code(err))
	}
}

type grpcStreamRec struct {
	grpc.ClientStream
	c     *conn
	rec   *record
	start time.Time
	ctx   context.Context
	n     int
}

func (s *grpcStreamRec) RecvMsg(m any) error {
	err := s.ClientStream.RecvMsg(m)
	if err == nil {
		s.n++
		return nil
	}
	s.c.finishGRPC(s.ctx, s.rec, s.start, errIfNotEOF(err))
	return err
}

func newGRPCExchange(target, method string) model.Exchange {
	return model.Exchange{At: time.Now(), Method: "GRPC", URL: target, RPC: path.Base(method)}
}

func errIfNotEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

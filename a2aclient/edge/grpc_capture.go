package edge

import (
	"context"
	"errors"
	"io"
	"path"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"a2atop/model"
)

// GRPCCapture is the gRPC side of the capture: interceptors that record
// each call and stream open in ring, its status code in the call's
// Probe, and what it read against read (the sweep's byte budget).
type GRPCCapture struct {
	ring *Ring
	read func(ctx context.Context, n int) error
}

// NewGRPCCapture records in ring; read is told the size of each unary
// answer and may fail the call.
func NewGRPCCapture(ring *Ring, read func(ctx context.Context, n int) error) *GRPCCapture {
	return &GRPCCapture{ring: ring, read: read}
}

// Unary records gRPC calls in the capture ring and the call's probe.
func (c *GRPCCapture) Unary(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, inv grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	rec := &record{ex: newGRPCExchange(cc.Target(), method)}
	c.ring.add(rec)
	start := time.Now()
	err := inv(ctx, method, req, reply, cc, opts...)
	c.finishGRPC(ctx, rec, start, err)
	if m, ok := reply.(proto.Message); ok && err == nil {
		err = c.read(ctx, proto.Size(m)) // the HTTP edge does this in sweepBytes
	}
	return err
}

// Stream records gRPC stream opens and their ending error.
func (c *GRPCCapture) Stream(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, st grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	rec := &record{ex: newGRPCExchange(cc.Target(), method)}
	c.ring.add(rec)
	start := time.Now()
	cs, err := st(ctx, desc, cc, method, opts...)
	if err != nil {
		c.finishGRPC(ctx, rec, start, err)
		return nil, err
	}
	return &grpcStreamRec{ClientStream: cs, c: c, rec: rec, start: start, ctx: ctx}, nil
}

func (c *GRPCCapture) finishGRPC(ctx context.Context, rec *record, start time.Time, err error) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	rec.ex.Duration = time.Since(start)
	if err != nil {
		rec.ex.Err = status.Convert(err).Code().String() + ": " + status.Convert(err).Message()
		ProbeFrom(ctx).setGRPC(status.Code(err))
	}
}

type grpcStreamRec struct {
	grpc.ClientStream
	c     *GRPCCapture
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

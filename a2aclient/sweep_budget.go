package a2aclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
)

// errSweepTooLarge is wrapped by the error of a sweep whose ListTasks
// answers, all pages together, passed MaxSweepBytes or MaxSweepPages.
var errSweepTooLarge = fmt.Errorf("%w: the sweep", ErrTooLarge)

// sweepBudget is what one sweep may still read: response bytes (all its
// pages, over every binding) and pages. Safe for concurrent use: the
// listings of one sweep share it.
type sweepBudget struct {
	maxBytes int64
	maxPages int64
	bytes    atomic.Int64
	pages    atomic.Int64
}

type sweepBudgetKey struct{}

// withSweepBudget returns ctx carrying a new budget for one sweep.
func withSweepBudget(ctx context.Context, maxBytes int64, maxPages int) (context.Context, *sweepBudget) {
	b := &sweepBudget{maxBytes: maxBytes, maxPages: int64(maxPages)}
	return context.WithValue(ctx, sweepBudgetKey{}, b), b
}

func sweepBudgetFrom(ctx context.Context) *sweepBudget {
	b, _ := ctx.Value(sweepBudgetKey{}).(*sweepBudget)
	return b
}

// read charges n response bytes; it fails once the sweep has read more
// than maxBytes.
func (b *sweepBudget) read(n int) error {
	if b == nil || b.bytes.Add(int64(n)) <= b.maxBytes {
		return nil
	}
	return fmt.Errorf("%w's ListTasks answers passed %s (raise max_sweep_bytes if this agent legitimately lists more)",
		errSweepTooLarge, byteWords(b.maxBytes))
}

// page charges one page; it fails past maxPages.
func (b *sweepBudget) page() error {
	if b == nil || b.pages.Add(1) <= b.maxPages {
		return nil
	}
	return fmt.Errorf("%w passed %d pages of ListTasks (raise max_sweep_pages if this agent legitimately lists more)",
		errSweepTooLarge, b.maxPages)
}

func byteWords(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// sweepBytes charges the response bodies of a sweep's requests to its
// budget (withSweepBudget on the request's context), so that one sweep
// reads at most MaxSweepBytes however many pages it takes: a listing
// that never ends, or pages padded with megabytes, fail on the agent's
// row instead of feeding it. gRPC answers are charged by grpcUnary.
type sweepBytes struct{ next http.RoundTripper }

func sweepBytesLayer(next http.RoundTripper) http.RoundTripper { return sweepBytes{next} }

// RoundTrip implements http.RoundTripper.
func (t sweepBytes) RoundTrip(req *http.Request) (*http.Response, error) {
	b := sweepBudgetFrom(req.Context())
	resp, err := t.next.RoundTrip(req)
	if err != nil || b == nil {
		return resp, err
	}
	resp.Body = &budgetedBody{rc: resp.Body, b: b}
	return resp, nil
}

// budgetedBody is a response body read against a sweep's budget. Its
// Read fails for good once the budget is spent.
type budgetedBody struct {
	rc  io.ReadCloser
	b   *sweepBudget
	err error
}

func (r *budgetedBody) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	n, err := r.rc.Read(p)
	if berr := r.b.read(n); berr != nil {
		r.err = berr
		return n, berr
	}
	return n, err
}

func (r *budgetedBody) Close() error { return r.rc.Close() }

func isSweepTooLarge(err error) bool { return errors.Is(err, errSweepTooLarge) }

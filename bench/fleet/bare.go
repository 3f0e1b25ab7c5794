package main

import (
	"container/heap"
	"context"
	"net/http"
	"slices"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdk "github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
)

// bareResult is what the SDK's own client, with nothing of a2atop, takes
// for the same listings from the same agent: what the agent costs.
type bareResult struct {
	Inbox, Picture time.Duration // by state, one listing after another
	Pages          int
	All            time.Duration // every task, no filter
	AllPages       int
	FleetPicture   time.Duration // every agent listed by state at once, to the last one's picture
	StreamN        int           // stream latency, over StreamTasks streams
	StreamP50      time.Duration
	StreamP99      time.Duration
}

func bareClient(ctx context.Context, url string) (*sdk.Client, error) {
	hc := &http.Client{}
	card, err := (&agentcard.Resolver{Client: hc}).Resolve(ctx, url)
	if err != nil {
		return nil, err
	}
	return sdk.NewFromCard(ctx, card, sdk.WithJSONRPCTransport(hc))
}

// bareListing lists one agent as a2atop's first sweep does, one listing
// at a time, then, when all, every task with no filter.
func bareListing(ctx context.Context, url string, keep int, all bool) (bareResult, error) {
	var r bareResult
	cl, err := bareClient(ctx, url)
	if err != nil {
		return r, err
	}
	defer cl.Destroy()
	zero := 0
	list := func(st a2a.TaskState, each func([]*a2a.Task) bool) (int, error) {
		req := &a2a.ListTasksRequest{Status: st, PageSize: 100, HistoryLength: &zero}
		pages := 0
		for {
			resp, err := cl.ListTasks(ctx, req)
			if err != nil {
				return pages, err
			}
			pages++
			if !each(resp.Tasks) || resp.NextPageToken == "" {
				return pages, nil
			}
			req.PageToken = resp.NextPageToken
		}
	}
	start := time.Now()
	every := func([]*a2a.Task) bool { return true }
	for _, st := range []a2a.TaskState{a2a.TaskStateInputRequired, a2a.TaskStateAuthRequired, a2a.TaskStateSubmitted, a2a.TaskStateWorking} {
		n, err := list(st, every)
		if err != nil {
			return r, err
		}
		r.Pages += n
		if st == a2a.TaskStateAuthRequired {
			r.Inbox = time.Since(start)
		}
	}
	newest := &tsMinHeap{}
	for _, st := range []a2a.TaskState{a2a.TaskStateCompleted, a2a.TaskStateFailed, a2a.TaskStateCanceled, a2a.TaskStateRejected} {
		n, err := list(st, func(ts []*a2a.Task) bool {
			oldest := time.Time{}
			for i, t := range ts {
				at := *t.Status.Timestamp
				if i == 0 || at.Before(oldest) {
					oldest = at
				}
				newest.add(at, keep)
			}
			return !(newest.Len() >= keep && !(*newest)[0].Before(oldest))
		})
		if err != nil {
			return r, err
		}
		r.Pages += n
	}
	r.Picture = time.Since(start)
	if !all {
		return r, nil
	}
	start = time.Now()
	n, err := list("", every)
	r.All, r.AllPages = time.Since(start), n
	return r, err
}

// bareFleet lists every agent at once, each as bareListing does by
// state, and returns when the last one's picture was complete.
func bareFleet(ctx context.Context, agents []agentInfo, keep int) (time.Duration, error) {
	start := time.Now()
	errs := make(chan error, len(agents))
	for _, a := range agents {
		go func() {
			_, err := bareListing(ctx, a.URL, keep, false)
			errs <- err
		}()
	}
	var first error
	for range agents {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return time.Since(start), first
}

// bareStreams subscribes to up to n of the agent's working tasks with
// the SDK's client for d and measures, for each status event, the time
// from its status timestamp to its arrival.
func bareStreams(ctx context.Context, url string, n int, d time.Duration) (count int, p50, p99 time.Duration, err error) {
	cl, err := bareClient(ctx, url)
	if err != nil {
		return 0, 0, 0, err
	}
	defer cl.Destroy()
	resp, err := cl.ListTasks(ctx, &a2a.ListTasksRequest{Status: a2a.TaskStateWorking, PageSize: 100})
	if err != nil {
		return 0, 0, 0, err
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	lat := make(chan time.Duration, 1024)
	var ids []a2a.TaskID
	for _, t := range resp.Tasks {
		if len(ids) < n {
			ids = append(ids, t.ID)
		}
	}
	for _, id := range ids {
		go func() {
			for ev, err := range cl.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: id}) {
				if err != nil {
					return
				}
				if s, ok := ev.(*a2a.TaskStatusUpdateEvent); ok && s.Status.Timestamp != nil {
					lat <- time.Since(*s.Status.Timestamp)
				}
			}
		}()
	}
	var s []time.Duration
	for {
		select {
		case l := <-lat:
			s = append(s, l)
		case <-ctx.Done():
			slices.Sort(s)
			if len(s) == 0 {
				return 0, 0, 0, nil
			}
			return len(s), s[len(s)/2], s[min(len(s)*99/100, len(s)-1)], nil
		}
	}
}

// tsMinHeap keeps the newest n timestamps added, oldest on top.
type tsMinHeap []time.Time

func (h tsMinHeap) Len() int           { return len(h) }
func (h tsMinHeap) Less(i, j int) bool { return h[i].Before(h[j]) }
func (h tsMinHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *tsMinHeap) Push(x any)        { *h = append(*h, x.(time.Time)) }
func (h *tsMinHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func (h *tsMinHeap) add(t time.Time, n int) {
	if h.Len() < n {
		heap.Push(h, t)
	} else if t.After((*h)[0]) {
		(*h)[0] = t
		heap.Fix(h, 0)
	}
}

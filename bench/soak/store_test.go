//go:build soak

package soak

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"

	"a2atop/model"
)

// pruneEvery is how many tasks an agent creates between two prunings of
// its store.
const pruneEvery = 200

// prunedStore is a soak agent's task store: the SDK's in-memory store,
// of which, every pruneEvery tasks created, the finished tasks but the
// newest 2*keep are let go, as a real agent's retention does. The SDK's
// store holds every task it ever ran (about 1.6 KB each, three tasks a
// decision), and the agents share the soak's heap: unpruned, they were
// most of the growth the soak measured, not the dashboard. Versions stay
// what the handler was told: a task carried into a new store starts at
// version 1 there, and shift adds back the difference. Safe for
// concurrent use: pruning holds every other call off.
type prunedStore struct {
	mu      sync.RWMutex
	inner   *taskstore.InMemory
	shift   map[a2a.TaskID]taskstore.TaskVersion
	created atomic.Int64
}

func newPrunedStore() *prunedStore {
	return &prunedStore{inner: newInMemory(), shift: map[a2a.TaskID]taskstore.TaskVersion{}}
}

func newInMemory() *taskstore.InMemory {
	return taskstore.NewInMemory(&taskstore.InMemoryStoreConfig{Authenticator: a2asrv.NewTaskStoreAuthenticator()})
}

func (s *prunedStore) Create(ctx context.Context, task *a2a.Task) (taskstore.TaskVersion, error) {
	s.mu.RLock()
	v, err := s.inner.Create(ctx, task)
	s.mu.RUnlock()
	if err == nil && s.created.Add(1)%pruneEvery == 0 {
		s.prune()
	}
	return v, err
}

func (s *prunedStore) Update(ctx context.Context, req *taskstore.UpdateRequest) (taskstore.TaskVersion, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	d := s.shift[req.Task.ID]
	r := *req
	if r.PrevVersion != taskstore.TaskVersionMissing {
		r.PrevVersion -= d
	}
	v, err := s.inner.Update(ctx, &r)
	if err != nil {
		return v, err
	}
	return v + d, nil
}

func (s *prunedStore) Get(ctx context.Context, id a2a.TaskID) (*taskstore.StoredTask, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	st, err := s.inner.Get(ctx, id)
	if err == nil {
		st.Version += s.shift[id]
	}
	return st, err
}

func (s *prunedStore) List(ctx context.Context, req *a2a.ListTasksRequest) (*a2a.ListTasksResponse, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.inner.List(ctx, req)
}

// prune carries into a new store every open task and the newest 2*keep
// finished ones, oldest first so that the store lists them in the same
// order (by when each was last updated).
func (s *prunedStore) prune() {
	s.mu.Lock()
	defer s.mu.Unlock()
	ctx := soakUser()
	var ids []a2a.TaskID // newest first
	req := &a2a.ListTasksRequest{PageSize: 100}
	for {
		resp, err := s.inner.List(ctx, req)
		if err != nil {
			return
		}
		for _, t := range resp.Tasks {
			ids = append(ids, t.ID)
		}
		if resp.NextPageToken == "" {
			break
		}
		req.PageToken = resp.NextPageToken
	}
	var kept []*taskstore.StoredTask
	finished := 0
	for _, id := range ids {
		st, err := s.inner.Get(ctx, id)
		if err != nil {
			continue
		}
		if model.ClassOf(st.Task.Status.State) == model.ClassTerminal {
			if finished++; finished > 2*keep {
				continue
			}
		}
		kept = append(kept, st)
	}
	inner, shift := newInMemory(), map[a2a.TaskID]taskstore.TaskVersion{}
	for _, st := range slices.Backward(kept) {
		if _, err := inner.Create(ctx, st.Task); err != nil {
			return // keep the old store whole
		}
		shift[st.Task.ID] = st.Version + s.shift[st.Task.ID] - 1
	}
	s.inner, s.shift = inner, shift
}

// soakUser is a context of the one user the agents know (see authAll).
func soakUser() context.Context {
	ctx, cc := a2asrv.NewCallContext(context.Background(), nil)
	cc.User = a2asrv.NewAuthenticatedUser("soak", nil)
	return ctx
}

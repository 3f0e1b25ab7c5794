package jetstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// LeasesBucket is the KV bucket of the hubs' watch leases.
const LeasesBucket = "A2ATOP_LEASES"

// Leases are the hubs' watch leases in a KV bucket whose entries end ttl
// after their last write: an agent's key holds the id of the hub that
// watches it, taken and renewed by compare-and-set on the key's
// revision, so that one hub at a time watches each agent and a hub that
// dies lets its agents go within ttl. It satisfies hub.SharedLeases.
// Safe for concurrent use.
type Leases struct {
	kv      jetstream.KeyValue
	ttl     time.Duration
	timeout time.Duration
}

// Leases opens (creating it when there is none) the leases' bucket, its
// entries ending ttl after their last write, on the store's replicas.
// A bucket another hub made with another ttl is refused in words: two
// hubs that disagree on how long a lease lasts would watch one agent
// twice.
func (s *Store) Leases(ctx context.Context, ttl time.Duration) (*Leases, error) {
	if ttl < time.Second {
		return nil, fmt.Errorf("a watch lease of %s is too short: at least 1s", ttl)
	}
	var kv jetstream.KeyValue
	var st jetstream.KeyValueStatus
	err := s.whileForming(ctx, func(ctx context.Context) (err error) {
		kv, err = s.js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: LeasesBucket,
			Description: "a2atop: which hub watches each agent, for a while after its last renewal",
			TTL:         ttl, History: 1, Storage: jetstream.MemoryStorage, Replicas: s.c.Replicas})
		if errors.Is(err, jetstream.ErrBucketExists) { // another hub made it
			kv, err = s.js.KeyValue(ctx, LeasesBucket)
		}
		if err == nil { // a bucket just made may not answer yet while the cluster places it
			st, err = kv.Status(ctx)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("%s: the watch leases' bucket %s: %w", s.where, LeasesBucket, err)
	}
	if st.TTL() != ttl {
		return nil, fmt.Errorf("%s: the watch leases' bucket %s keeps a lease %s, this hub's lease_ttl is %s: give every hub of the team the same lease_ttl (or remove the bucket: nats kv del %s)",
			s.where, LeasesBucket, st.TTL(), ttl, LeasesBucket)
	}
	// A request waits a third of a lease at most: a hub renews every
	// third, and one that cannot must know it before its leases lapse.
	return &Leases{kv: kv, ttl: ttl, timeout: min(s.c.Timeout, ttl/3)}, nil
}

// TTL is how long a lease lasts after its last write.
func (l *Leases) TTL() time.Duration { return l.ttl }

// Get is the value and revision at key; nil and 0 when no one holds it.
func (l *Leases) Get(key string) ([]byte, uint64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), l.timeout)
	defer cancel()
	e, err := l.kv.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	return e.Value(), e.Revision(), nil
}

// Create takes the lease at key for value when no one holds it: ok
// false (and no error) when someone does.
func (l *Leases) Create(key string, value []byte) (rev uint64, ok bool, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), l.timeout)
	defer cancel()
	rev, err = l.kv.Create(ctx, key, value)
	if errors.Is(err, jetstream.ErrKeyExists) {
		return 0, false, nil
	}
	return rev, err == nil, err
}

// Update renews the lease at key when its revision is still rev: ok
// false (and no error) when it is not (it lapsed, or another took it).
func (l *Leases) Update(key string, value []byte, rev uint64) (uint64, bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), l.timeout)
	defer cancel()
	next, err := l.kv.Update(ctx, key, value, rev)
	if errors.Is(err, jetstream.ErrKeyRevisionMismatch) || errors.Is(err, jetstream.ErrKeyExists) {
		return 0, false, nil
	}
	return next, err == nil, err
}

// Delete gives up the lease at key if its revision is still rev (0:
// whatever it is).
func (l *Leases) Delete(key string, rev uint64) error {
	ctx, cancel := context.WithTimeout(context.Background(), l.timeout)
	defer cancel()
	err := l.kv.Delete(ctx, key, jetstream.LastRevision(rev))
	if isWrongLastSeq(err) {
		return nil // not ours any more
	}
	return err
}

// Put writes value at key whoever holds it (a hub's presence).
func (l *Leases) Put(key string, value []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), l.timeout)
	defer cancel()
	_, err := l.kv.Put(ctx, key, value)
	return err
}

// Keys are the keys held now that match filter ("h.*").
func (l *Leases) Keys(filter string) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), l.timeout)
	defer cancel()
	kl, err := l.kv.ListKeysFiltered(ctx, filter)
	if err != nil {
		return nil, err
	}
	defer kl.Stop()
	var out []string
	for {
		select {
		case k, ok := <-kl.Keys():
			if !ok {
				return out, nil
			}
			out = append(out, k)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// isWrongLastSeq reports a compare-and-set that found another revision.
func isWrongLastSeq(err error) bool {
	var api *jetstream.APIError
	return errors.As(err, &api) && (api.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence ||
		api.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant)
}

// whileForming runs f, again every 250ms while the cluster is forming
// (no JetStream leader yet, a stream being placed), until StartWait.
func (s *Store) whileForming(ctx context.Context, f func(context.Context) error) error {
	deadline := time.Now().Add(s.c.StartWait)
	for {
		cctx, cancel := context.WithTimeout(ctx, s.c.Timeout)
		err := f(cctx)
		cancel()
		if err == nil || !forming(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

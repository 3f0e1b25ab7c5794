package jetstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// ClaimsBucket is the KV bucket of the hubs' claims.
const ClaimsBucket = "A2ATOP_CLAIMS"

// Claims are the team's claims ("alice is answering") in a KV bucket
// whose entries end ttl after their last put, so that every hub's feed
// shows every hub's claims and a claim whose hub died ends by itself.
// It satisfies hub.SharedClaims. Safe for concurrent use.
type Claims struct {
	kv      jetstream.KeyValue
	timeout time.Duration
}

// Claims opens (creating it when there is none) the claims' bucket,
// its entries kept on the store's replicas for ttl.
func (s *Store) Claims(ctx context.Context, ttl time.Duration) (*Claims, error) {
	cctx, cancel := context.WithTimeout(ctx, s.c.StartWait)
	defer cancel()
	kv, err := s.js.CreateKeyValue(cctx, jetstream.KeyValueConfig{Bucket: ClaimsBucket,
		Description: "a2atop: the operators' claims, each for a while after its last renewal",
		TTL:         ttl, LimitMarkerTTL: max(ttl, time.Second), Storage: jetstream.MemoryStorage, Replicas: s.c.Replicas})
	if errors.Is(err, jetstream.ErrBucketExists) { // another hub made it
		kv, err = s.js.KeyValue(cctx, ClaimsBucket)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: the claims' bucket %s: %w", s.where, ClaimsBucket, err)
	}
	return &Claims{kv: kv, timeout: s.c.Timeout}, nil
}

// Put takes or renews the claim at key.
func (c *Claims) Put(key string, value []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	_, err := c.kv.Put(ctx, key, value)
	return err
}

// Delete ends the claim at key.
func (c *Claims) Delete(key string) error {
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	return c.kv.Delete(ctx, key)
}

// Watch passes every claim the bucket holds, then every change any hub
// makes, until ctx ends: value nil for a claim that ended, expired when
// its time ran out. The watch recovers by itself after a loss.
func (c *Claims) Watch(ctx context.Context, fn func(key string, value []byte, expired bool)) error {
	w, err := c.kv.WatchAll(ctx)
	if err != nil {
		return err
	}
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case e, ok := <-w.Updates():
			if !ok {
				return nil
			}
			if e == nil { // the values held when the watch began are in
				continue
			}
			switch e.Operation() {
			case jetstream.KeyValuePut:
				fn(e.Key(), e.Value(), false)
			case jetstream.KeyValuePurge:
				fn(e.Key(), nil, true)
			default:
				fn(e.Key(), nil, false)
			}
		}
	}
}

package hub

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// SharedClaims is where the hubs of a team keep their claims, so that
// each hub's feed shows every hub's: a KV bucket whose entries end a
// while after their last put (*jetstore.Claims). Watch passes every
// change, the hub's own included (value nil: the claim ended; expired:
// by its time).
type SharedClaims interface {
	Put(key string, value []byte) error
	Delete(key string) error
	Watch(ctx context.Context, fn func(key string, value []byte, expired bool)) error
}

// claimStoreKey is a claim's key in the shared store.
func claimStoreKey(k claimKey) string {
	h := sha256.Sum256([]byte(k.agent + "\x00" + k.task + "\x00" + k.operator))
	return "c" + hex.EncodeToString(h[:16])
}

// shareClaim puts a claim taken here in the shared store.
func (h *Hub) shareClaim(c Claim) {
	if h.o.Claims == nil {
		return
	}
	if err := h.o.Claims.Put(claimStoreKey(claimKey{c.Agent, string(c.Task), c.Operator}), encode(c)); err != nil {
		h.log.Warn("claims: not shared with the other hubs", "operator", c.Operator, "err", err)
	}
}

// unshareClaim ends a claim in the shared store.
func (h *Hub) unshareClaim(k claimKey) {
	if h.o.Claims == nil {
		return
	}
	if err := h.o.Claims.Delete(claimStoreKey(k)); err != nil {
		h.log.Warn("claims: the end of a claim not shared with the other hubs", "operator", k.operator, "err", err)
	}
}

// followClaims applies every hub's claims to this hub's feed until ctx
// ends: a new claim, or one that says another thing, goes on the feed;
// an ended one is released.
func (h *Hub) followClaims(ctx context.Context) {
	if h.o.Claims == nil {
		return
	}
	byKey := map[string]claimKey{}
	err := h.o.Claims.Watch(ctx, func(key string, value []byte, expired bool) {
		if value == nil {
			if k, ok := byKey[key]; ok {
				delete(byKey, key)
				reason := "closed"
				if expired {
					reason = "idle"
				}
				h.release(k, reason)
			}
			return
		}
		var c Claim
		if json.Unmarshal(value, &c) != nil || c.Agent == "" || c.Operator == "" || !h.agents[c.Agent] {
			return
		}
		k := claimKey{c.Agent, string(c.Task), c.Operator}
		byKey[key] = k
		h.applyClaim(k, c)
	})
	if err != nil {
		h.log.Error("claims: not following the other hubs' claims", "err", err)
	}
}

// applyClaim holds a claim another hub (or this one) put in the shared
// store.
func (h *Hub) applyClaim(k claimKey, c Claim) {
	h.feed.mu.Lock()
	defer h.feed.mu.Unlock()
	old, had := h.feed.claims[k]
	if had && old.What == c.What {
		old.Until = c.Until
		h.feed.claims[k] = old
		return
	}
	h.feed.claims[k] = c
	h.feed.appendLocked(entry{name: EventClaim, agent: c.Agent, data: encode(c)})
}

package credential

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// countingSource hands out tok-1, tok-2, ... one per fetch.
type countingSource struct{ n int }

func (s *countingSource) token(context.Context) (string, time.Time, error) {
	s.n++
	return fmt.Sprintf("tok-%d", s.n), time.Time{}, nil
}

// Two reads sent with one token are both refused: the first refusal
// clears the token; the second arrives before anyone fetched the next.
// Both are retried (each with the fresh token), so the agent's row does
// not show a refusal that one more fetch answers. Several listings of
// one sweep run at once, so this is the common case, not a corner.
func TestCachedTokenRefusedTwiceBeforeTheNextFetch(t *testing.T) {
	c := newCachedToken(&countingSource{}, "Authorization", "Bearer ")
	h, err := c.Headers(context.Background())
	if err != nil || h[0].Value != "Bearer tok-1" {
		t.Fatalf("first headers = %v, %v", h, err)
	}
	if !c.Refused("Bearer tok-1") {
		t.Fatal("the first refusal of tok-1 is not retried")
	}
	if !c.Refused("Bearer tok-1") {
		t.Fatal("the second refusal of tok-1, before the next fetch, is not retried")
	}
	h, _ = c.Headers(context.Background())
	if h[0].Value != "Bearer tok-2" {
		t.Fatalf("after the refusals the token is %q; want tok-2", h[0].Value)
	}
	if !c.Refused("Bearer tok-1") {
		t.Fatal("a late refusal of tok-1, after tok-2 was fetched, is not retried")
	}
	if h, _ = c.Headers(context.Background()); h[0].Value != "Bearer tok-2" {
		t.Fatalf("a late refusal of the old token dropped the new one: %q", h[0].Value)
	}
}

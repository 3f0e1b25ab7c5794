package hubclient

import (
	"encoding/json"
	"time"

	"a2atop/hub"
)

// RecordReachable reports whether the hub can reach the team's record it
// keeps its journal in (a shared journal in NATS JetStream) and, when it
// cannot, since when (by the hub's clock) and why, in words. Meanwhile
// the hub refuses every decision and sends nothing, and it tries again
// by itself. It is what the hub's feed said last: a hub on a journal
// file always can, and while the feed is down (Connected) it is the
// last word heard. It reads memory; Changed is closed when it changes.
func (c *Client) RecordReachable() (bool, time.Time, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.record == nil {
		return true, time.Time{}, ""
	}
	return false, c.record.Since, c.record.Why
}

// applyRecord is an EventRecord: the hub lost its record, or has it back.
func (c *Client) applyRecord(data []byte) error {
	var r hub.Record
	if err := json.Unmarshal(data, &r); err != nil {
		return err
	}
	if r.Reachable {
		c.setRecord(nil)
		return nil
	}
	c.setRecord(&r)
	return nil
}

// setRecord notes where the hub's record stands (nil: reachable) and
// wakes whoever waits on Changed when that is news.
func (c *Client) setRecord(r *hub.Record) {
	c.mu.Lock()
	was := c.record
	c.record = r
	if (was == nil) != (r == nil) || r != nil && (r.Why != was.Why || !r.Since.Equal(was.Since)) {
		c.changedLocked()
	}
	c.mu.Unlock()
	switch {
	case r != nil && was == nil:
		c.log.Warn("feed: the hub cannot reach the team's record; it refuses decisions until it is back", "hub", c.URL(), "since", r.Since, "why", r.Why)
	case r == nil && was != nil:
		c.log.Info("feed: the hub has the team's record back", "hub", c.URL())
	}
}

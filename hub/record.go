package hub

import (
	"context"
	"errors"
	"strings"
	"time"

	"a2atop/approvals"
)

// A hub whose journal is a shared record (NATS JetStream) looks at it
// every recordEvery (approvals.Service.RecordReachable: a leader, a
// majority of its servers current, and this hub's reading at its end)
// and tells its feed when it loses the record and when it has it back
// (EventRecord; a snapshot says where it stands). The dashboards draw it
// as a banner: decisions are refused meanwhile, nothing is sent, and the
// hub keeps trying by itself. A hub on a journal file has nothing to
// look at.

// recordEvery is how often the hub looks at its shared record.
const recordEvery = time.Second

// recordMisses is how many looks in a row must fail before the feed is
// told the record is lost: one look that finds this hub's reading
// behind for a moment (another hub appended a burst) is no loss. One
// look that works says it is back.
const recordMisses = 2

// watchRecord looks at the shared record until ctx ends.
func (h *Hub) watchRecord(ctx context.Context) {
	if h.o.Journal.Shared == nil {
		return
	}
	t := time.NewTicker(recordEvery)
	defer t.Stop()
	misses, first := 0, time.Time{} // the looks that failed in a row, and when the first began
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		began := h.o.Now()
		lctx, cancel := context.WithTimeout(ctx, loopWait)
		err := h.svc.RecordReachable(lctx)
		cancel()
		switch {
		case ctx.Err() != nil:
			return
		case err == nil:
			misses = 0
			h.noteRecord(nil, h.o.Now())
		default:
			if misses++; misses == 1 {
				first = began
			}
			if misses >= recordMisses {
				h.noteRecord(err, first)
			}
		}
	}
}

// noteRecord puts on the feed that the record is lost (err) or back
// (nil) since now, when that is news. The state and the event change
// under the log's lock, so a snapshot and its position agree on it.
func (h *Hub) noteRecord(err error, now time.Time) {
	h.feed.mu.Lock()
	was := h.feed.record
	if (err == nil) == (was == nil) {
		h.feed.mu.Unlock()
		return
	}
	r := Record{Reachable: err == nil, Since: now}
	if err != nil {
		r.Why = recordWhy(err, h.o.Journal.Shared.Where())
		h.feed.record = &r
	} else {
		h.feed.record = nil
	}
	h.feed.appendLocked(entry{name: EventRecord, data: encode(r)})
	h.feed.mu.Unlock()
	if err != nil {
		h.log.Warn("the team's record is unreachable: decisions are refused and nothing is sent until it is back; the dashboards are told, and the hub tries again every "+recordEvery.String(), "err", err)
		return
	}
	h.log.Info("the team's record is reachable again: decisions are taken; the dashboards are told", "after", now.Sub(was.Since).Round(time.Millisecond).String())
}

// recordWhy is why the record at where cannot be reached: the cause,
// then where, so that a banner cut at its end keeps the cause; without
// the words every such error starts with ("not sent: the team's record
// is unreachable"), which the dashboards say themselves.
func recordWhy(err error, where string) string {
	why := err.Error()
	if errors.Is(err, approvals.ErrRecordUnreachable) {
		why = strings.TrimPrefix(why, approvals.ErrRecordUnreachable.Error())
		why = strings.TrimSpace(why)
		if strings.HasPrefix(why, "(") && strings.HasSuffix(why, ")") {
			why = why[1 : len(why)-1]
		}
	}
	if cause, ok := strings.CutPrefix(why, where+": "); ok && where != "" {
		why = cause + " (" + where + ")"
	}
	if why == "" {
		return "no reason given"
	}
	return why
}

package jetstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// The watchers' events' stream.
const (
	// EventsStream holds what the hubs' watchers saw, for a while: each
	// hub applies every hub's to its own fleet.
	EventsStream = "A2ATOP_EVENTS"
	// eventsPrefix is where each agent's events go ("a2atop.events.a<hash>").
	eventsPrefix = "a2atop.events."
	// fromHeader names the hub that published a message.
	fromHeader = "A2atop-Hub"
)

// Events is the stream of the watchers' events: the hub that watches an
// agent publishes what its watcher saw there, one subject per agent, and
// every hub follows the stream. The stream keeps a while of them, within
// a size (MaxAge, MaxBytes: the oldest go first); it is no record, the
// agents are (a hub that takes an agent over sweeps it whole). It
// satisfies hub.SharedEvents. Safe for concurrent use.
type Events struct {
	js      jetstream.JetStream
	timeout time.Duration
	maxMsg  int
	where   string
}

// Events opens (creating it when there is none) the events' stream,
// keeping maxAge of them within maxBytes, on the store's replicas. A
// stream another hub made with other limits is updated to these (it is
// no record: shorter limits only drop older events sooner), and the
// change is logged with both: every hub of a team needs the same limits,
// the last one started sets them.
func (s *Store) Events(ctx context.Context, maxAge time.Duration, maxBytes int64) (*Events, error) {
	if maxAge <= 0 || maxBytes <= 0 {
		return nil, fmt.Errorf("jetstore: the events' stream needs limits, not an age of %s and %d bytes", maxAge, maxBytes)
	}
	maxMsg := int(s.nc.MaxPayload()) - 1024 // room for the headers
	cfg := jetstream.StreamConfig{Name: EventsStream,
		Description: "a2atop: what the hubs' watchers saw, for a while",
		Subjects:    []string{eventsPrefix + ">"}, Retention: jetstream.LimitsPolicy, Discard: jetstream.DiscardOld,
		MaxAge: maxAge, MaxBytes: maxBytes, MaxMsgSize: int32(maxMsg), Storage: jetstream.FileStorage,
		Replicas: s.c.Replicas, Duplicates: time.Minute}
	err := s.whileForming(ctx, func(ctx context.Context) error {
		st, err := findOrCreate(ctx, s.js, cfg, s.c.Timeout)
		if err != nil {
			return err
		}
		got := st.CachedInfo().Config
		if got.MaxAge == maxAge && got.MaxBytes == maxBytes {
			return nil
		}
		upd := got
		upd.MaxAge, upd.MaxBytes = maxAge, maxBytes
		if _, err := s.js.UpdateStream(ctx, upd); err != nil {
			return fmt.Errorf("it keeps %s within %d bytes; changing it to %s within %d bytes (this hub's events_max_age, events_max_bytes) was refused: %w",
				got.MaxAge, got.MaxBytes, maxAge, maxBytes, err)
		}
		s.c.Logger.Warn("the events' stream had other limits: changed to this hub's (every hub of a team needs the same events_max_age and events_max_bytes)",
			"stream", EventsStream, "max_age", maxAge.String(), "max_bytes", maxBytes, "was_max_age", got.MaxAge.String(), "was_max_bytes", got.MaxBytes)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: the events' stream %s: %w", s.where, EventsStream, err)
	}
	return &Events{js: s.js, timeout: s.c.Timeout, maxMsg: maxMsg, where: s.where}, nil
}

// MaxBytes is the largest message the stream takes.
func (e *Events) MaxBytes() int { return e.maxMsg }

// Publish puts each data on its agent's subject (agents[i]; "" is the
// hubs' own subject, for what they ask of each other), from the hub
// named from, and waits until the stream holds them all: the first error
// is returned.
func (e *Events) Publish(ctx context.Context, from string, agents []string, data [][]byte) error {
	if len(agents) != len(data) {
		return errors.New("jetstore: Publish: one agent per message")
	}
	ctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	futs := make([]jetstream.PubAckFuture, 0, len(data))
	var first error
	for i, d := range data {
		nm := &nats.Msg{Subject: eventsSubject(agents[i]), Data: d, Header: nats.Header{fromHeader: []string{from}}}
		f, err := e.js.PublishMsgAsync(nm, jetstream.WithStallWait(e.timeout))
		if err != nil {
			first = err
			break
		}
		futs = append(futs, f)
	}
	for _, f := range futs {
		select {
		case <-f.Ok():
		case err := <-f.Err():
			if first == nil {
				first = err
			}
		case <-ctx.Done():
			if first == nil {
				first = ctx.Err()
			}
			return first
		}
	}
	return first
}

// Follow passes every message published from once it has begun (ready
// is called then), each with the hub
// that published it, its agent's key (AgentKey; "" for the hubs' own
// subject) and its sequence in the stream, in the stream's order, until
// ctx ends. It recovers by itself after a loss of the
// servers (from where it was, as long as the stream still holds it).
func (e *Events) Follow(ctx context.Context, ready func(), fn func(from, agentKey string, data []byte, seq uint64)) error {
	var cons jetstream.Consumer
	for {
		var err error
		cctx, cancel := context.WithTimeout(ctx, e.timeout)
		cons, err = e.js.OrderedConsumer(cctx, EventsStream, jetstream.OrderedConsumerConfig{DeliverPolicy: jetstream.DeliverNewPolicy})
		cancel()
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return nil
		}
		if !forming(err) && !errors.Is(err, nats.ErrConnectionClosed) && !errors.Is(err, nats.ErrDisconnected) && !errors.Is(err, jetstream.ErrStreamNotFound) {
			return fmt.Errorf("%s: following the events' stream %s: %w", e.where, EventsStream, err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(500 * time.Millisecond):
		}
	}
	cc, err := cons.Consume(func(msg jetstream.Msg) {
		meta, err := msg.Metadata()
		if err != nil {
			return
		}
		agent := ""
		if s := msg.Subject(); len(s) > len(eventsPrefix) && s != eventsSubject("") {
			agent = s[len(eventsPrefix):]
		}
		fn(msg.Headers().Get(fromHeader), agent, msg.Data(), meta.Sequence.Stream)
	})
	if err != nil {
		return fmt.Errorf("%s: following the events' stream %s: %w", e.where, EventsStream, err)
	}
	if ready != nil {
		ready()
	}
	<-ctx.Done()
	cc.Stop()
	return nil
}

// eventsSubject is an agent's subject: its name hashed (names may hold
// what a subject may not); "" is the hubs' own.
func eventsSubject(agent string) string {
	if agent == "" {
		return eventsPrefix + "hubs"
	}
	return eventsPrefix + AgentKey(agent)
}

// AgentKey is an agent's name as a subject's token or a KV key: a hash
// (names may hold dots, spaces, what a key may not).
func AgentKey(agent string) string {
	h := sha256.Sum256([]byte(agent))
	return "a" + hex.EncodeToString(h[:16])
}

// Identity names this events' stream for the feed's ids: its name and
// when it was created. Every hub of a team reads the same; a stream
// deleted and created again has another, so an id from before is not
// taken for one of it.
func (e *Events) Identity(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	st, err := e.js.Stream(ctx, EventsStream)
	if err != nil {
		return "", fmt.Errorf("%s: the events' stream %s: %w", e.where, EventsStream, err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		return "", fmt.Errorf("%s: the events' stream %s: %w", e.where, EventsStream, err)
	}
	return EventsStream + "." + strconv.FormatInt(info.Created.UnixNano(), 36), nil
}

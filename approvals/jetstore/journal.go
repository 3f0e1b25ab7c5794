package jetstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"a2atop/approvals"
)

// ErrUnreachable is wrapped by every append the store could not make
// durable: nothing was sent on it.
var ErrUnreachable = approvals.ErrRecordUnreachable

// Store is a hub's connection to the team's record: the journal
// (Journal) and the claims (Claims). Close it once the hub is done.
type Store struct {
	nc    *nats.Conn
	js    jetstream.JetStream
	c     Config
	where string
}

// Open connects to the team's NATS servers and checks what a hub needs
// there: JetStream on the account, the journal's stream (created when
// there is none) with the right configuration and replicas. Each
// refusal says which server and why.
func Open(ctx context.Context, c Config) (*Store, error) {
	c = c.withDefaults()
	nc, err := connect(c)
	if err != nil {
		return nil, err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("%s: %w", c.where(), err)
	}
	s := &Store{nc: nc, js: js, c: c, where: c.where()}
	if err := s.check(ctx); err != nil {
		nc.Close()
		return nil, err
	}
	return s, nil
}

// check waits (StartWait at most) for a server that answers with
// JetStream, then refuses an account without it.
func (s *Store) check(ctx context.Context) error {
	deadline := time.Now().Add(s.c.StartWait)
	for {
		cctx, cancel := context.WithTimeout(ctx, s.c.Timeout)
		err := checkJetStream(cctx, s.js, s.where)
		cancel()
		if err == nil || !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, nats.ErrNoResponders) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// Close closes the connection.
func (s *Store) Close() error {
	s.nc.Close()
	return nil
}

// Journal opens the journal's stream and starts reading it, in order,
// from its first record; the first Read passes every record the stream
// held when Journal was called. Its Close closes only the reading.
func (s *Store) Journal(ctx context.Context) (*Journal, error) {
	st, err := ensureStream(ctx, s.js, s.c)
	if err != nil {
		return nil, err
	}
	j := &Journal{js: s.js, stream: st, timeout: s.c.Timeout, log: s.c.Logger,
		where: s.where + " stream " + StreamName, passed: map[string]uint64{}, seen: map[string]uint64{}, wake: make(chan struct{}), poke: make(chan struct{}, 1)}
	if err := j.start(ctx); err != nil {
		return nil, err
	}
	return j, nil
}

// Journal is the team's journal in its stream, as one hub reads and
// appends it: it implements approvals.SharedLog. An ordered consumer
// delivers the stream, record by record, into a buffer that Read hands
// on; the consumer recreates itself after a loss, from the record after
// the last delivered.
type Journal struct {
	js      jetstream.JetStream
	stream  jetstream.Stream
	cc      jetstream.ConsumeContext
	timeout time.Duration
	log     *slog.Logger
	where   string

	mu     sync.Mutex
	buf    []delivered       // delivered, not yet passed by Read
	got    uint64            // the stream sequence of the last record delivered
	passed map[string]uint64 // subject -> the sequence of its last record Read passed
	seen   map[string]uint64 // subject -> the sequence of its last record delivered
	wake   chan struct{}     // closed (and replaced) each time got moves
	poke   chan struct{}     // holds one value once a record was delivered (Changes)
}

// delivered is a record as the consumer delivered it.
type delivered struct {
	seq     uint64
	subject string
	data    []byte
}

var _ approvals.SharedLog = (*Journal)(nil)

// start starts the consumer and waits until it has delivered what the
// stream holds now.
func (j *Journal) start(ctx context.Context) error {
	cons, err := j.js.OrderedConsumer(ctx, StreamName, jetstream.OrderedConsumerConfig{DeliverPolicy: jetstream.DeliverAllPolicy})
	if err != nil {
		return fmt.Errorf("%s: reading the journal: %w", j.where, err)
	}
	j.cc, err = cons.Consume(j.deliver, jetstream.ConsumeErrHandler(func(_ jetstream.ConsumeContext, err error) {
		j.log.Debug("journal stream: consumer", "err", err)
	}))
	if err != nil {
		return fmt.Errorf("%s: reading the journal: %w", j.where, err)
	}
	ictx, cancel := context.WithTimeout(ctx, j.timeout)
	info, err := j.stream.Info(ictx)
	cancel()
	if err != nil {
		j.cc.Stop()
		return fmt.Errorf("%s: %w", j.where, err)
	}
	if err := j.waitFor(ctx, info.State.LastSeq, 10*j.timeout); err != nil {
		j.cc.Stop()
		return err
	}
	return nil
}

// deliver takes one record from the consumer.
func (j *Journal) deliver(m jetstream.Msg) {
	md, err := m.Metadata()
	if err != nil {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if md.Sequence.Stream <= j.got {
		return // delivered again after the consumer was recreated
	}
	j.buf = append(j.buf, delivered{seq: md.Sequence.Stream, subject: m.Subject(), data: m.Data()})
	j.got = md.Sequence.Stream
	j.seen[m.Subject()] = j.got
	close(j.wake)
	j.wake = make(chan struct{})
	select {
	case j.poke <- struct{}{}:
	default: // one is waiting already: it covers this record too
	}
}

// Changes receives a value soon after records were delivered (several
// close together coalesce into one), so that a hub reads what another
// hub appended at once rather than on its clock.
func (j *Journal) Changes() <-chan struct{} { return j.poke }

// waitFor waits until the consumer has delivered the record seq.
func (j *Journal) waitFor(ctx context.Context, seq uint64, d time.Duration) error {
	return j.wait(ctx, d, func() bool { return j.got >= seq }, func() string {
		return fmt.Sprintf("record %d not read back within %s; the last read is %d", seq, d, j.got)
	})
}

// waitAfter waits until the consumer has delivered a record on subj
// after the record exp.
func (j *Journal) waitAfter(ctx context.Context, subj string, exp uint64, d time.Duration) error {
	return j.wait(ctx, d, func() bool { return j.seen[subj] > exp }, func() string {
		return fmt.Sprintf("the record that came first was not read within %s", d)
	})
}

// wait waits until done (called with j.mu held) holds, or d has passed.
func (j *Journal) wait(ctx context.Context, d time.Duration, done func() bool, late func() string) error {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		j.mu.Lock()
		ok, wake := done(), j.wake
		j.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return fmt.Errorf("%w (%s: %v); nothing was sent", ErrUnreachable, j.where, ctx.Err())
		case <-t.C:
			j.mu.Lock()
			why := late()
			j.mu.Unlock()
			return fmt.Errorf("%w (%s: %s); nothing was sent", ErrUnreachable, j.where, why)
		}
	}
}

// Where names the stream and its servers.
func (j *Journal) Where() string { return j.where }

// Read passes on what the consumer delivered since the last Read.
func (j *Journal) Read(fn func([]approvals.JournalLine)) error {
	j.mu.Lock()
	buf := j.buf
	j.buf = nil
	for _, d := range buf {
		j.passed[d.subject] = d.seq
	}
	j.mu.Unlock()
	if len(buf) == 0 {
		return nil
	}
	out := make([]approvals.JournalLine, len(buf))
	for i, d := range buf {
		out[i] = approvals.JournalLine{N: int(d.seq), Raw: d.data}
	}
	fn(out)
	return nil
}

// Append publishes each line on its prompt's subject with the sequence
// of the last record Read passed on it as the expected one: JetStream
// refuses the append when another hub's came first. It returns once
// the consumer has delivered each appended record (and the one that
// came first, after a conflict).
//
// An append whose answer was lost (a timeout while the stream elects a
// leader, a connection cut between the publish and its ack) is resolved
// before Append answers (publish): the person is never told "not sent"
// of a record that is in the stream.
func (j *Journal) Append(lines []approvals.KeyedLine) ([]int, error) {
	var ns []int
	mine := map[string]uint64{} // the last line this Append put on a subject: the next on it follows that one
	for _, l := range lines {
		subj := subjectPrefix + l.Key
		j.mu.Lock()
		exp := j.passed[subj]
		j.mu.Unlock()
		if seq, ok := mine[subj]; ok {
			exp = seq
		}
		seq, err := j.publish(subj, l.Raw, exp)
		if err != nil {
			return ns, err
		}
		ctx, cancel := context.WithTimeout(context.Background(), j.timeout)
		err = j.waitFor(ctx, seq, j.timeout)
		cancel()
		if err != nil {
			return ns, err
		}
		ns = append(ns, int(seq))
		mine[subj] = seq
	}
	return ns, nil
}

// publish appends raw on subj after the record exp and returns its
// sequence. The record carries a Nats-Msg-Id made of its content, and a
// publish whose answer does not come is sent again with the same id
// until the timeout has passed: JetStream stores it once and answers a
// repeat of one it holds with that record's sequence (a duplicate).
// When no answer came by then, it reads back the first record on subj
// after exp to learn whether the append landed. A refusal because
// another record came first is checked the same way: the record that
// came first may be this one, landed by an attempt whose answer was
// lost.
func (j *Journal) publish(subj string, raw []byte, exp uint64) (uint64, error) {
	sum := sha256.Sum256(raw)
	id := hex.EncodeToString(sum[:16])
	deadline := time.Now().Add(j.timeout)
	attempt := max(j.timeout/4, 100*time.Millisecond)
	var last error
	for tries := 0; ; tries++ {
		m := &nats.Msg{Subject: subj, Data: raw, Header: nats.Header{}}
		m.Header.Set(jetstream.MsgIDHeader, id)
		ctx, cancel := context.WithTimeout(context.Background(), min(attempt, max(time.Until(deadline), 10*time.Millisecond)))
		ack, err := j.js.PublishMsg(ctx, m, jetstream.WithExpectStream(StreamName), jetstream.WithExpectLastSequencePerSubject(exp))
		cancel()
		if err == nil {
			if tries > 0 {
				j.log.Debug("journal stream: an append answered after a retry", "subject", subj, "seq", ack.Sequence, "duplicate", ack.Duplicate)
			}
			return ack.Sequence, nil
		}
		if conflict(err) {
			return j.cameFirst(subj, exp, id)
		}
		last = err
		if refused(err) {
			if tries == 0 { // JetStream answered no to the only attempt: nothing landed
				return 0, fmt.Errorf("%w (%s: %v); nothing was sent", ErrUnreachable, j.where, err)
			}
			break // an earlier attempt may have landed: read it back
		}
		if !time.Now().Add(100 * time.Millisecond).Before(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	seq, landed, err := j.readBack(subj, exp, id)
	switch {
	case err != nil:
		return 0, fmt.Errorf("%w (%s: %v; whether the decision was recorded cannot be read back: %v); nothing was sent", ErrUnreachable, j.where, last, err)
	case landed:
		j.log.Debug("journal stream: an append whose answer was lost is in the stream", "subject", subj, "seq", seq)
		return seq, nil
	}
	return 0, fmt.Errorf("%w (%s: %v); nothing was sent", ErrUnreachable, j.where, last)
}

// cameFirst answers an append refused because a record came first on
// subj after exp: when that record is this one (an earlier attempt
// landed) the append succeeded; otherwise it is a conflict.
func (j *Journal) cameFirst(subj string, exp uint64, id string) (uint64, error) {
	if seq, landed, err := j.readBack(subj, exp, id); err == nil && landed {
		return seq, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), j.timeout)
	defer cancel()
	return 0, j.conflicted(ctx, subj, exp)
}

// readBack reads the first record on subj after exp and reports whether
// it is the one whose Nats-Msg-Id is id, and its sequence.
func (j *Journal) readBack(subj string, exp uint64, id string) (uint64, bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), j.timeout)
	defer cancel()
	m, err := j.stream.GetMsg(ctx, exp+1, jetstream.WithGetMsgSubject(subj))
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	return m.Sequence, m.Header.Get(jetstream.MsgIDHeader) == id, nil
}

// refused reports an answer of JetStream that says the append was not
// stored (a refusal other than the stream being unavailable), as
// opposed to no answer at all.
func refused(err error) bool {
	var je jetstream.JetStreamError
	if !errors.As(err, &je) || je.APIError() == nil {
		return false
	}
	switch je.APIError().Code {
	case 503: // no leader for now: an earlier attempt may still land
		return false
	}
	return true
}

// conflicted waits until the consumer has delivered the record that
// came first on subj (after exp), so that the next Read passes it.
func (j *Journal) conflicted(ctx context.Context, subj string, exp uint64) error {
	if err := j.waitAfter(ctx, subj, exp, j.timeout); err != nil {
		return err
	}
	return fmt.Errorf("%w (%s)", approvals.ErrConflict, subj)
}

// conflict reports JetStream's refusal of an append whose expected last
// sequence on its subject is not the last.
func conflict(err error) bool {
	var je jetstream.JetStreamError
	if !errors.As(err, &je) || je.APIError() == nil {
		return false
	}
	c := je.APIError().ErrorCode
	return c == jetstream.JSErrCodeStreamWrongLastSequence || c == jetstream.JSErrCodeStreamWrongLastSequenceConstant
}

// Close stops reading the stream.
func (j *Journal) Close() error {
	j.cc.Stop()
	return nil
}

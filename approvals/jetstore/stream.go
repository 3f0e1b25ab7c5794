package jetstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// The journal's stream.
const (
	// StreamName is the stream that holds the team's journal.
	StreamName = "A2ATOP_JOURNAL"
	// subjectPrefix is where each record's key goes: one subject per
	// prompt ("a2atop.journal.p<hash>").
	subjectPrefix = "a2atop.journal."
	// formatKey is the stream's metadata naming the journal format its
	// records are written in; a hub refuses a stream of a newer one.
	formatKey = "a2atop_format"
	// format is the journal format this hub writes (the records' "v").
	format = 2
)

// streamConfig is the configuration the journal's stream must have: all
// the records, kept for ever, on files, never deleted or purged, on
// replicas servers, with a duplicates window (at least) well beyond the
// time an append takes to learn whether it landed (Journal.settleWithin).
func streamConfig(replicas int) jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:        StreamName,
		Description: "a2atop: the team's journal of decisions",
		Subjects:    []string{subjectPrefix + ">"},
		Retention:   jetstream.LimitsPolicy,
		Discard:     jetstream.DiscardNew,
		MaxMsgs:     -1, MaxBytes: -1, MaxAge: 0, MaxMsgsPerSubject: -1,
		Storage:    jetstream.FileStorage,
		Replicas:   replicas,
		Duplicates: 2 * time.Minute,
		DenyDelete: true,
		DenyPurge:  true,
		Metadata:   map[string]string{formatKey: strconv.Itoa(format)},
	}
}

// ensureStream finds the journal's stream, or creates it, and refuses
// one whose configuration would lose or reorder records, or whose
// replicas are not the configured ones. While the cluster is forming it
// asks again until StartWait has passed.
func ensureStream(ctx context.Context, js jetstream.JetStream, c Config) (jetstream.Stream, error) {
	want := streamConfig(c.Replicas)
	deadline := time.Now().Add(c.StartWait)
	for {
		st, err := findOrCreate(ctx, js, want, c.Timeout)
		if err == nil {
			return st, checkStream(st.CachedInfo().Config, want, c.where())
		}
		if !forming(err) || time.Now().After(deadline) {
			return nil, streamError(err, c)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func findOrCreate(ctx context.Context, js jetstream.JetStream, want jetstream.StreamConfig, timeout time.Duration) (jetstream.Stream, error) {
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	st, err := js.Stream(cctx, want.Name)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		st, err = js.CreateStream(cctx, want)
		if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) { // another hub made it meanwhile
			st, err = js.Stream(cctx, want.Name)
			if errors.Is(err, jetstream.ErrStreamNotFound) {
				err = errStreamPlacing
			}
		}
	}
	return st, err
}

// errStreamPlacing is a stream another hub has just made that the
// cluster has not placed yet: it is "in use" to create and "not found"
// to look up for a moment (three hubs starting at once; seen in CI).
var errStreamPlacing = errors.New("the journal's stream is being placed by the cluster")

// forming reports an error of a cluster that has no JetStream leader
// yet, a server that is starting, or a stream being placed.
func forming(err error) bool {
	if errors.Is(err, errStreamPlacing) {
		return true
	}
	var je jetstream.JetStreamError
	if errors.As(err, &je) && je.APIError() != nil {
		switch je.APIError().ErrorCode {
		case 10008, // JetStream system temporarily unavailable
			10003: // cluster not active / no leader
			return true
		}
	}
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrNoResponders) || errors.Is(err, nats.ErrTimeout)
}

// streamError puts a refusal of the stream in words.
func streamError(err error, c Config) error {
	var je jetstream.JetStreamError
	if errors.As(err, &je) && je.APIError() != nil {
		switch je.APIError().ErrorCode {
		case 10023, // insufficient resources
			10074: // replicas > 1 not supported in non-clustered mode
			return fmt.Errorf("%s: the cluster cannot keep %d replicas of the journal (%s): run at least %d JetStream servers, or set [hub.store] replicas to what the cluster has",
				c.where(), c.Replicas, je.APIError().Description, c.Replicas)
		}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s: the JetStream cluster did not answer within %s (a cluster without a majority of its servers, or one still forming): start the other servers, then the hub again", c.where(), c.StartWait)
	}
	return fmt.Errorf("%s: opening the journal's stream %s: %w", c.where(), StreamName, err)
}

// checkStream refuses a stream that would not keep every record, in
// order, on the configured replicas, or that holds a newer format.
func checkStream(got, want jetstream.StreamConfig, where string) error {
	bad := func(what string, has, should any) error {
		return fmt.Errorf("%s: the stream %s has %s %v, the journal needs %v: fix the stream (nats stream edit %s) or remove it if it is not the team's journal",
			where, StreamName, what, has, should, StreamName)
	}
	switch {
	case !slices.Equal(got.Subjects, want.Subjects):
		return bad("subjects", got.Subjects, want.Subjects)
	case got.Retention != want.Retention:
		return bad("retention", got.Retention, want.Retention)
	case got.Storage != want.Storage:
		return bad("storage", got.Storage, want.Storage)
	case got.MaxMsgs > 0 || got.MaxBytes > 0 || got.MaxAge > 0 || got.MaxMsgsPerSubject > 0:
		return bad("limits (max msgs, bytes, age, per subject)", fmt.Sprint(got.MaxMsgs, got.MaxBytes, got.MaxAge, got.MaxMsgsPerSubject), "none")
	case got.Duplicates < want.Duplicates:
		return bad("a duplicates window of", got.Duplicates, fmt.Sprintf("at least %s (an append whose answer was lost is published again with its message id, and must be stored once)", want.Duplicates))
	case !got.DenyDelete || !got.DenyPurge:
		return bad("deny delete, deny purge", fmt.Sprint(got.DenyDelete, got.DenyPurge), "true true")
	case got.Replicas != want.Replicas:
		return fmt.Errorf("%s: the stream %s keeps %d replicas, the config says replicas = %d: set replicas to %d, or change the stream's (nats stream edit %s --replicas %d)",
			where, StreamName, got.Replicas, want.Replicas, got.Replicas, StreamName, want.Replicas)
	}
	if v, err := strconv.Atoi(got.Metadata[formatKey]); err == nil && v > format {
		return fmt.Errorf("%s: the stream %s is written in journal format %d; this a2atop reads format %d: run the newer a2atop on every hub", where, StreamName, v, format)
	}
	return nil
}

package jetstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// reachWait bounds Reachable when its context has no deadline.
const reachWait = 2 * time.Second

// Reachable asks for the stream's state (a follower answers too while
// the stream has no leader, so the answer is checked: a leader, and a
// majority of its replicas current), and waits until this hub's consumer has delivered every record the stream
// held then: nil when the record can be reached and this hub has read it
// to its end, else an error wrapping ErrUnreachable.
func (j *Journal) Reachable(ctx context.Context) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, reachWait)
		defer cancel()
	}
	dl, _ := ctx.Deadline()
	wait := time.Until(dl)
	info, err := j.stream.Info(ctx)
	if errors.Is(err, context.DeadlineExceeded) { // nats.go's words: "context deadline exceeded"
		err = fmt.Errorf("no server answered within %s", wait.Round(time.Second))
	}
	if err != nil {
		return fmt.Errorf("%w (%s: %v)", ErrUnreachable, j.where, err)
	}
	if why := quorumLost(info.Cluster, info.Config.Replicas); why != "" {
		return fmt.Errorf("%w (%s: %s)", ErrUnreachable, j.where, why)
	}
	if err := j.waitFor(ctx, info.State.LastSeq, time.Until(dl)); err != nil {
		return fmt.Errorf("%w (%s: this hub has not read the record to its end, line %d)", ErrUnreachable, j.where, info.State.LastSeq)
	}
	return nil
}

// quorumLost says why a stream of replicas with the cluster state ci
// cannot take an append now, or "".
func quorumLost(ci *jetstream.ClusterInfo, replicas int) string {
	if ci == nil || replicas <= 1 {
		return ""
	}
	if ci.Leader == "" {
		return "the stream has no leader: a majority of its servers is out of reach"
	}
	up := 1
	for _, p := range ci.Replicas {
		if p != nil && p.Current && !p.Offline {
			up++
		}
	}
	if up <= replicas/2 {
		return fmt.Sprintf("%d of the stream's %d servers are current: a majority is needed", up, replicas)
	}
	return ""
}

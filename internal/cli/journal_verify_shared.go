package cli

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"time"

	"a2atop/approvals"
	"a2atop/internal/config"
	"a2atop/internal/sanitize"
)

// verifyShared is `a2atop journal verify` on a config whose team keeps
// its record in NATS JetStream ([hub.store] nats): it reads the record
// and says what it checked (approvals.VerifyShared): every line in the
// stream's order without a gap, every line a record, and the hash chain
// of a journal migrated into it. The record's own lines are not
// chained; it says so. The hubs' embedded cluster takes clients in
// their own processes only, so a config with cluster_listen alone is
// refused in words.
func verifyShared(o *options, cfg *config.Config, key ed25519.PublicKey) int {
	if len(cfg.Hub.Store.NATS) == 0 {
		return o.failf(exitFailed, "%v", cfg.At("hub.cluster_listen",
			"the team's record is in the hubs' embedded NATS cluster, which takes clients inside each hub only: journal verify cannot read it from here; the hash chain and signed checkpoints cover file journals (name one: a2atop journal verify FILE)"))
	}
	s := o.open(cfg)
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	j, done, code := s.openRecord(ctx, cfg, cfg.Hub.Store.NATS, cfg.Hub.StoreReplicas(), "verify")
	if j == nil {
		return code
	}
	defer done()
	v, err := approvals.VerifyShared(key, j)
	if err != nil {
		return s.failf(exitFailed, "%s", sanitize.Line(err.Error(), 500))
	}
	return printShared(s, v)
}

// printShared says what VerifyShared checked, and the exit status.
func printShared(s *session, v approvals.SharedVerify) int {
	w, where := s.st.Out, sanitize.Line(v.Where, 300)
	fmt.Fprintf(w, "team's record %s: %d lines, read in the stream's order, numbered 1 to %d without a gap (the stream denies deletes and purges)\n", where, v.Lines, v.Lines)
	broken := len(v.Damaged) > 0
	if broken {
		fmt.Fprintf(w, "team's record %s: %d line(s) are not records (a2atop journal check on a hub lists them): first at line %d\n", where, len(v.Damaged), v.Damaged[0])
	}
	if v.Chained > 0 {
		fmt.Fprintf(w, "lines 1 to %d were migrated from a file journal and carry its hash chain:\n", v.Chained)
		broken = printChain(w, v.Chain, v.Where) || broken
	}
	if rest := v.Lines - v.Chained; rest > 0 {
		fmt.Fprintf(w, "lines %d to %d are the record's own: not hash-chained and not signed (the chain and checkpoints cover file journals); each was acknowledged by a majority of the stream's servers before its decision was sent\n", v.Chained+1, v.Lines)
	}
	if broken {
		return exitFailed
	}
	return exitOK
}

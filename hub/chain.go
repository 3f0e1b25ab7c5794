package hub

import (
	"errors"
	"fmt"

	"a2atop/approvals"
)

// ErrBrokenChain is wrapped by Open's refusal of a journal whose hash
// chain is broken (see approvals.ChainStatus) when Options do not
// AcceptBrokenChain.
var ErrBrokenChain = errors.New("the journal's hash chain is broken")

// acceptBrokenChainNote is what the journal records when the hub starts
// on a broken chain anyway.
const acceptBrokenChainNote = "a2atop serve --accept-broken-chain: the hub was started on this break"

// checkChain refuses a journal whose chain breaks where no earlier
// acceptance covers (a cut last line is a crash's, which the next write
// names), or, told to go on, records that it went on over the break.
func (h *Hub) checkChain() error {
	c := h.svc.Chain()
	if c.Shared != "" {
		h.log.Info("journal chain: " + c.Shared)
		return nil
	}
	b := c.First(false)
	if b == nil {
		h.log.Info("journal chain verified", "records", c.Records, "from_line", c.Start, "checkpoints", c.Checkpoints,
			"signed_line", c.SignedLine, "unsigned", c.Unsigned, "accepted_breaks", len(c.Breaks))
		return nil
	}
	if !h.o.AcceptBrokenChain {
		return fmt.Errorf("%w at %s in %s: check it with a2atop journal verify; to serve on it anyway, start with --accept-broken-chain (the journal records that you did)",
			ErrBrokenChain, b.Sentence(), b.Path)
	}
	if err := h.svc.AcceptChain(*b, acceptBrokenChainNote); err != nil {
		return fmt.Errorf("journal: recording --accept-broken-chain: %w", err)
	}
	h.log.Warn("started on a broken journal chain (--accept-broken-chain), recorded in the journal", "line", b.Line, "kind", string(b.Kind))
	return nil
}

// journalKey is the public key of the hub's checkpoints, "" without.
func (h *Hub) journalKey() string {
	if c := h.o.Journal.Checkpoints; c != nil && len(c.Key) > 0 {
		return approvals.KeyText(c.Public())
	}
	return ""
}

// checkpoint signs the chain's head as the hub stops.
func (h *Hub) checkpoint() {
	if h.o.Journal.Checkpoints == nil || h.o.Journal.ReadOnly {
		return
	}
	if err := h.svc.Checkpoint(); err != nil {
		h.log.Error("journal: the checkpoint at shutdown", "err", err)
	}
}

// record is Me.Record: what holds the journal's lines when it is a
// shared record, "" for a journal file.
func (h *Hub) record() string {
	if h.o.Journal.Shared == nil {
		return ""
	}
	return h.svc.Chain().Shared
}

package approvals

import "crypto/ed25519"

// LineRef is a journal line an entry rests on: its number in the file,
// its place in the chain (0 for a record written before the chain) and
// the SHA-256 of its bytes, which the next line's prev names.
type LineRef struct {
	Line int
	Seq  int
	Hash [32]byte
}

// HashText is the line's hash as the journal writes it ("sha256:…").
func (r LineRef) HashText() string { return sumText(r.Hash) }

// expectHead makes the chain's walk expect the checkpoint the head file
// beside a journal file keeps (chain_head.go).
func (s *Service) expectHead() {
	fs, ok := s.st.(*fileStore)
	if !ok {
		return
	}
	h, err := readHead(fs.path)
	if err != nil {
		s.log.Warn("journal: the head file is not read; a journal cut short is not noticed", "err", err)
		return
	}
	s.walk.expectHead(h, headPath(fs.path))
}

// noteLine adds a folded line to the entry it is a record of. Callers
// hold s.mu.
func (s *Service) noteLine(l line, cl chainLine) {
	var e *Entry
	switch r := l.rec; {
	case r.ID != "":
		e = s.entries[r.ID]
	case r.Type == recState && len(s.order) > 0:
		e = s.order[len(s.order)-1]
	}
	if e != nil {
		e.Lines = append(e.Lines, LineRef{Line: l.n, Seq: cl.seq, Hash: cl.sum})
	}
}

// chainKey is the key the Service checks checkpoints with: its own.
func (o Options) chainKey() ed25519.PublicKey {
	if o.Checkpoints == nil || len(o.Checkpoints.Key) != ed25519.PrivateKeySize {
		return nil
	}
	return o.Checkpoints.Public()
}

// Chain is the journal's chain as the Service has read it so far (see
// chain.go): checked line by line as lines fold in, so it costs nothing
// to ask. A Service attached to a hub checks the hub's lines as the feed
// delivers them.
func (s *Service) Chain() ChainStatus {
	if s.onSharedRecord() {
		return ChainStatus{Path: s.st.where(), Shared: s.sharedWords()}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inFiles(s.walk.status())
}

// Checkpoint signs the chain's head now (a hub, when it stops), unless
// no record came since the last checkpoint. It needs
// Options.Checkpoints. On a shared record, which is not chained, it
// signs nothing (chain_shared.go).
func (s *Service) Checkpoint() error {
	if s.o.Checkpoints == nil {
		return errNoCheckpoints
	}
	if s.onSharedRecord() {
		return nil
	}
	return s.write(record{Type: recCheckpoint, Approver: s.o.Approver})
}

// AcceptChain records that this Service goes on over the chain's
// breaks up to b (the first one no earlier acceptance covers), as an
// operator told it to (`a2atop serve --accept-broken-chain`); note says
// how. Later walks show those breaks as accepted.
func (s *Service) AcceptChain(b ChainBreak, note string) error {
	return s.write(record{Type: recChainAccept, Line: b.Line, Hash: b.Hash, Approver: s.o.Approver, Note: note})
}

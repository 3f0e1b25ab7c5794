package cli

import (
	"crypto/ed25519"
	"fmt"
	"path/filepath"

	"a2atop/approvals"
	"a2atop/internal/config"
)

// signingKeyName is the file, beside the hub's journal in its state
// directory, of the key that signs the journal's checkpoints.
const signingKeyName = "hub-signing.key"

// signingKeyPath is where the hub of cfg keeps its signing key.
func signingKeyPath(cfg *config.Config) string {
	return filepath.Join(filepath.Dir(cfg.JournalPath), signingKeyName)
}

// hubCheckpoints loads (creating it on first start) the hub's signing
// key: the hub signs its journal's chain with it.
func (s *session) hubCheckpoints() (*approvals.Checkpoints, error) {
	key, err := approvals.LoadSigningKey(signingKeyPath(s.cfg))
	if err != nil {
		return nil, err
	}
	return &approvals.Checkpoints{Key: key}, nil
}

// printKey is `a2atop serve --print-key`: the public key that verifies
// the hub's checkpoints, as a PEM block and as the line GET /v1/me
// gives, for `a2atop journal verify --key`. The private key never leaves
// its file.
func (s *session) printKey() int {
	c, err := s.hubCheckpoints()
	if err != nil {
		return s.failf(exitFailed, "%v", err)
	}
	pub := c.Key.Public().(ed25519.PublicKey)
	fmt.Fprintf(s.st.Out, "%s%s\n", approvals.PublicKeyPEM(pub), approvals.KeyText(pub))
	return exitOK
}

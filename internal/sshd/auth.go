package sshd

import (
	"crypto/subtle"

	"github.com/charmbracelet/ssh"
	gossh "golang.org/x/crypto/ssh"
)

// keyring finds the operator of a public key. Read only once built.
type keyring []keyEntry

type keyEntry struct {
	operator string
	key      []byte // the key's wire form
}

func newKeyring(ops []Operator) keyring {
	var kr keyring
	for _, op := range ops {
		for _, k := range op.Keys {
			kr = append(kr, keyEntry{operator: op.Name, key: k.Marshal()})
		}
	}
	return kr
}

// find is the operator of key, "" for none. Every key is compared, in
// constant time for keys of one length, whatever matches.
func (kr keyring) find(key gossh.PublicKey) string {
	wire := key.Marshal()
	found := ""
	for _, e := range kr {
		if len(e.key) == len(wire) && subtle.ConstantTimeCompare(e.key, wire) == 1 && found == "" {
			found = e.operator
		}
	}
	return found
}

// authenticate is the public key handler: a key of an operator is in;
// any other is refused, with nothing said to the client, and logged with
// its fingerprint. Passwords and keyboard-interactive are not offered at
// all. Which operator a session is comes from the key the connection
// proved it holds (Session.PublicKey), never from the last key this was
// asked about: a client may ask about several keys, one it cannot sign
// with among them (golang.org/x/crypto/ssh, CVE-2024-45337).
func (s *Server) authenticate(ctx ssh.Context, key ssh.PublicKey) bool {
	if s.keys.find(key) != "" {
		return true
	}
	s.log.Warn("ssh key refused: not an operator's", "fingerprint", Fingerprint(key), "type", key.Type(),
		"user", ctx.User(), "remote", addr(ctx.RemoteAddr()))
	return false
}

// operatorOf is the operator of the key the session proved it holds and
// the key's fingerprint; "" when it is no operator's.
func (s *Server) operatorOf(sess ssh.Session) (op, fingerprint string) {
	k := sess.PublicKey()
	if k == nil {
		return "", ""
	}
	return s.keys.find(k), Fingerprint(k)
}

package sshd

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"

	gossh "golang.org/x/crypto/ssh"

	"a2atop/internal/statefile"
)

// HostKeyFile is the host key's file name in the state directory.
const HostKeyFile = "ssh_host_ed25519_key"

// HostKey reads the host key at path (an OpenSSH private key), or, when
// there is none, generates an ed25519 key and writes it there (0600, the
// directory 0700); created says which. A key file planted by another
// user, through a symbolic link, or readable by group or others is
// refused with an error saying what to do: the key is never read then.
func HostKey(path string) (key gossh.Signer, created bool, err error) {
	b, err := statefile.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return newHostKey(path)
	case err != nil:
		return nil, false, fmt.Errorf("the SSH host key: %w", err)
	}
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, false, fmt.Errorf("the SSH host key: %w", err)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return nil, false, fmt.Errorf("the SSH host key %s may be read by others (mode %04o): remove it to have a new one made, or chmod 600 it if nobody else read it", path, perm)
	}
	signer, err := gossh.ParsePrivateKey(b)
	if err != nil {
		return nil, false, fmt.Errorf("the SSH host key %s is not an OpenSSH private key without a passphrase (%v): remove it to have a new one made", path, err)
	}
	return signer, false, nil
}

// newHostKey generates an ed25519 host key and writes it at path.
func newHostKey(path string) (gossh.Signer, bool, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, false, fmt.Errorf("generate the SSH host key: %w", err)
	}
	block, err := gossh.MarshalPrivateKey(priv, "a2atop hub host key")
	if err != nil {
		return nil, false, fmt.Errorf("encode the SSH host key: %w", err)
	}
	if err := statefile.WriteFile(path, pem.EncodeToMemory(block)); err != nil {
		return nil, false, fmt.Errorf("write the SSH host key: %w", err)
	}
	signer, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		return nil, false, fmt.Errorf("the SSH host key: %w", err)
	}
	return signer, true, nil
}

// Fingerprint is the key's fingerprint as OpenSSH prints it
// ("SHA256:…", ssh-keygen -lf, the first connection's question).
func Fingerprint(k gossh.PublicKey) string { return gossh.FingerprintSHA256(k) }

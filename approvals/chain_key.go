package approvals

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"a2atop/internal/statefile"
)

// KeyText is a public key as the checkpoints, GET /v1/me and
// `a2atop serve --print-key` show it: "ed25519:" and its 32 bytes in
// standard base64.
func KeyText(pub ed25519.PublicKey) string {
	return "ed25519:" + base64.StdEncoding.EncodeToString(pub)
}

// ParseKeyText reads a KeyText.
func ParseKeyText(s string) (ed25519.PublicKey, error) {
	b64, ok := strings.CutPrefix(strings.TrimSpace(s), "ed25519:")
	if !ok {
		return nil, fmt.Errorf("%q is not an ed25519:BASE64 key", short(s))
	}
	b, err := base64.StdEncoding.DecodeString(b64)
	if err != nil || len(b) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("%q is not an ed25519:BASE64 key of 32 bytes", short(s))
	}
	return ed25519.PublicKey(b), nil
}

func short(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// PublicKeyPEM is pub as a PEM "PUBLIC KEY" block (PKIX), which openssl
// and other tools read.
func PublicKeyPEM(pub ed25519.PublicKey) []byte {
	der, _ := x509.MarshalPKIXPublicKey(pub) // an ed25519 key always marshals
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

// ParsePublicKey reads a hub's public key as `a2atop serve --print-key`
// prints it: a PEM "PUBLIC KEY" block, or a line "ed25519:BASE64".
func ParsePublicKey(b []byte) (ed25519.PublicKey, error) {
	if blk, _ := pem.Decode(b); blk != nil {
		if blk.Type != "PUBLIC KEY" {
			return nil, fmt.Errorf("a PEM %q block, not the PUBLIC KEY a2atop serve --print-key prints", blk.Type)
		}
		k, err := x509.ParsePKIXPublicKey(blk.Bytes)
		if err != nil {
			return nil, fmt.Errorf("the PUBLIC KEY block does not parse: %w", err)
		}
		pub, ok := k.(ed25519.PublicKey)
		if !ok {
			return nil, fmt.Errorf("a %T public key, not Ed25519", k)
		}
		return pub, nil
	}
	for _, l := range bytes.Split(b, []byte("\n")) {
		if t := strings.TrimSpace(string(l)); strings.HasPrefix(t, "ed25519:") {
			return ParseKeyText(t)
		}
	}
	return nil, errors.New("neither a PEM PUBLIC KEY block nor an ed25519:BASE64 line (what a2atop serve --print-key prints)")
}

// maxKeyFile bounds what LoadSigningKey reads.
const maxKeyFile = 4 << 10

// LoadSigningKey reads the hub's Ed25519 signing key at path (a PEM
// "PRIVATE KEY" block, PKCS #8), creating it (mode 0600, in a directory
// of mode 0700) when it does not exist. A key file another user could
// have planted (see statefile) or that group or others may read or write
// is refused: the key is what makes a checkpoint the hub's.
func LoadSigningKey(path string) (ed25519.PrivateKey, error) {
	key, err := readSigningKey(path)
	if !errors.Is(err, fs.ErrNotExist) || errors.Is(err, statefile.ErrUnsafe) {
		return key, err
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("journal signing key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, fmt.Errorf("journal signing key: %w", err)
	}
	if err := statefile.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})); err != nil {
		return nil, fmt.Errorf("journal signing key: %w", err)
	}
	return readSigningKey(path) // what is there now: another hub may have made it first
}

func readSigningKey(path string) (ed25519.PrivateKey, error) {
	f, err := statefile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("journal signing key: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("journal signing key: %w", err)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return nil, fmt.Errorf("journal signing key: %w: %s may be read or written by other users (mode %04o): chmod 600 it if it is the key you made, or remove it to make a new one (the old public key still verifies what it signed)",
			statefile.ErrUnsafe, path, perm)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxKeyFile+1))
	if err != nil {
		return nil, fmt.Errorf("journal signing key: read %s: %w", path, err)
	}
	blk, _ := pem.Decode(b)
	if len(b) > maxKeyFile || blk == nil || blk.Type != "PRIVATE KEY" {
		return nil, fmt.Errorf("journal signing key: %s is not a PEM PRIVATE KEY block: remove it to make a new key", path)
	}
	k, err := x509.ParsePKCS8PrivateKey(blk.Bytes)
	if err != nil {
		return nil, fmt.Errorf("journal signing key: %s: %w: remove it to make a new key", path, err)
	}
	priv, ok := k.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("journal signing key: %s holds a %T key, not Ed25519: remove it to make a new key", path, k)
	}
	return priv, nil
}

package credential

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"sync"
	"time"

	"a2atop/internal/secretfile"
)

// clientCert is the agent's client certificate kept from its files
// (cert_file, key_file). Each TLS handshake that asks for a certificate
// looks at the two files (size, time and identity, as fileToken does, no
// read) and reads them again when either changed, so that a certificate
// rotated on disk (cert-manager, short-lived certificates) is presented
// by the next new connection without a restart; a connection already
// open keeps the certificate it was opened with. A pair that cannot be
// used (half written, a key of another certificate, not PEM) is not
// presented: the last good one is, and note says why until the files
// change again. It never holds key material in its words or its log.
// Safe for concurrent use.
type clientCert struct {
	certFile, keyFile string
	log               *slog.Logger

	mu     sync.Mutex
	cur    *tls.Certificate // presented; nil when no pair was ever good
	stamps [2]fileStamp     // of the files last read, good or not; zero: read at the next handshake
	err    error            // why the files are not what is presented; nil when they are
	loose  string           // the last words of looseKey, to log each change once
}

// looseKey says, when other users may read the key file, so and what to
// do, logging it when it is news; "" when the file is the owner's alone.
// Called with mu held.
func (cc *clientCert) looseKey() string {
	words := secretfile.ReadableByOthers(cc.keyFile)
	if words != "" && words != cc.loose {
		cc.log.Warn("the client certificate's key file can be read by other users", "key_file", cc.keyFile, "err", words)
	}
	cc.loose = words
	return words
}

// newClientCert keeps the pair in certFile and keyFile, starting from
// initial (the pair read when the config was loaded): the files are read
// again at the first handshake, whatever they hold then.
func newClientCert(certFile, keyFile string, initial []tls.Certificate, log *slog.Logger) *clientCert {
	cc := &clientCert{certFile: certFile, keyFile: keyFile, log: log}
	if len(initial) > 0 {
		cc.cur = &initial[0]
	}
	return cc
}

// current is the certificate to present now, nil for none; it reads the
// files again first when they changed.
func (cc *clientCert) current() *tls.Certificate {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	st, err := cc.stat()
	switch {
	case err != nil:
		cc.stamps = [2]fileStamp{} // look again at the next handshake
		cc.fail(err)
	case st != cc.stamps:
		// Stamped before reading: a write that lands meanwhile changes
		// the stamps again, and the next handshake reads once more.
		cc.stamps = st
		pair, err := secretfile.KeyPair(cc.certFile, cc.keyFile)
		if err != nil {
			cc.fail(err)
			break
		}
		if cc.err != nil || cc.cur == nil || !sameCert(cc.cur, &pair) {
			cc.log.Info("client certificate read from its files", "cert_file", cc.certFile, "not_after", notAfter(&pair))
		}
		cc.cur, cc.err = &pair, nil
		cc.looseKey()
	}
	return cc.cur
}

// stat stamps both files.
func (cc *clientCert) stat() ([2]fileStamp, error) {
	var st [2]fileStamp
	for i, p := range []string{cc.certFile, cc.keyFile} {
		fi, err := os.Stat(p)
		if err != nil {
			return st, err
		}
		st[i] = stampOf(fi)
	}
	return st, nil
}

// fail records why the files cannot be used, logging it when it is news.
func (cc *clientCert) fail(err error) {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = fmt.Errorf("%s: %w", pe.Path, pe.Err)
	}
	if cc.err == nil || cc.err.Error() != err.Error() {
		cc.log.Warn("the client certificate's files cannot be used; the previous certificate is presented",
			"cert_file", cc.certFile, "key_file", cc.keyFile, "err", err.Error(), "presented_not_after", notAfter(cc.cur))
	}
	cc.err = err
}

// note says, for the agent's row, why the certificate presented is not
// the one in the files, or that the key file is open to other users
// (looked at now: a chmod changes no stamp); "" when all is well.
func (cc *clientCert) note() string {
	if cc == nil {
		return ""
	}
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if cc.err == nil {
		return cc.looseKey()
	}
	kept := "a2atop has no certificate to present"
	if cc.cur != nil {
		kept = "presenting the previous certificate"
		if t := notAfter(cc.cur); !t.IsZero() {
			kept += ", valid until " + t.UTC().Format("2006-01-02 15:04 UTC")
		}
	}
	return fmt.Sprintf("client certificate not renewed: cert_file %s with key_file %s cannot be used (%v); %s",
		cc.certFile, cc.keyFile, cc.err, kept)
}

// notAfter is when c expires, zero when unknown.
func notAfter(c *tls.Certificate) time.Time {
	if c == nil || c.Leaf == nil {
		return time.Time{}
	}
	return c.Leaf.NotAfter
}

// sameCert reports whether a and b hold the same certificate chain.
func sameCert(a, b *tls.Certificate) bool {
	if len(a.Certificate) != len(b.Certificate) {
		return false
	}
	for i := range a.Certificate {
		if string(a.Certificate[i]) != string(b.Certificate[i]) {
			return false
		}
	}
	return true
}

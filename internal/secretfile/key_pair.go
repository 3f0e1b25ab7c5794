package secretfile

import (
	"crypto/tls"
	"fmt"
)

// KeyPair is tls.LoadX509KeyPair reading the two files with Read: a
// certificate or key file that is not a small regular file is refused
// as Read refuses it, with an error that says which of the two and why.
// The caller names the two paths; the error never holds key material.
func KeyPair(certFile, keyFile string) (tls.Certificate, error) {
	certPEM, err := Read(certFile)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("the certificate file: %w", Reason(err))
	}
	keyPEM, err := Read(keyFile)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("the key file: %w", Reason(err))
	}
	return tls.X509KeyPair(certPEM, keyPEM)
}

package config

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"

	"a2atop/internal/secretfile"
)

// ClusterRoutes are what secure the embedded cluster's routes, read
// from the files and the environment the [hub] table names. The zero
// value is plain routes without a password.
type ClusterRoutes struct {
	// Cert is this hub's certificate and CAs the pool that verifies its
	// peers' (both nil without TLS).
	Cert *tls.Certificate
	CAs  *x509.CertPool
	// Password is what every route presents; "" for none. Never logged.
	Password string
}

// TLS reports whether the routes are TLS with mutual verification.
func (r ClusterRoutes) TLS() bool { return r.Cert != nil }

// The [hub] keys of the embedded cluster's security.
const (
	keyClusterCA       = "hub.cluster_ca_file"
	keyClusterCert     = "hub.cluster_cert_file"
	keyClusterKey      = "hub.cluster_key_file"
	keyClusterPassFile = "hub.cluster_password_file"
	keyClusterPassEnv  = "hub.cluster_password_env"
)

// validateCluster checks the [hub] keys of the routes' security: TLS
// files all three or none, at most one password source, and none of
// them with [hub.store] nats. They may be set without cluster_listen,
// for a hub whose --cluster-listen is given by flag.
func (c *Config) validateCluster() error {
	h := c.Hub
	set := h.ClusterCAFile != "" || h.ClusterCertFile != "" || h.ClusterKeyFile != "" || h.ClusterPasswordFile != "" || h.ClusterPasswordEnv != ""
	if set && len(h.Store.NATS) > 0 {
		return c.At("hub.store.nats", "the cluster_* keys of [hub] secure the routes of the hubs' own NATS cluster (cluster_listen); for [hub.store] nats use its ca_file, cert_file, key_file and creds_file")
	}
	if err := clusterFilesTogether(h, func(key string) string { return key }); err != nil {
		return c.At(err.key, err.msg)
	}
	if h.ClusterPasswordFile != "" && h.ClusterPasswordEnv != "" {
		return c.At(keyClusterPassFile, "set cluster_password_file or cluster_password_env, not both")
	}
	return nil
}

type clusterErr struct{ key, msg string }

// clusterFilesTogether refuses some of the three TLS files without the
// others; name says how each key was given (a flag or the key).
func clusterFilesTogether(h Hub, name func(key string) string) *clusterErr {
	ca, cert, key := h.ClusterCAFile != "", h.ClusterCertFile != "", h.ClusterKeyFile != ""
	if ca == cert && cert == key {
		return nil
	}
	missing := keyClusterKey
	switch {
	case !ca:
		missing = keyClusterCA
	case !cert:
		missing = keyClusterCert
	}
	return &clusterErr{key: name(missing), msg: fmt.Sprintf("%s, %s and %s go together: each hub presents its certificate to its peers and verifies theirs with the CA; %s is missing",
		name(keyClusterCA), name(keyClusterCert), name(keyClusterKey), name(missing))}
}

// ClusterRoutes reads the routes' certificate, CA and password. byFlag
// names, for each key whose value a flag of serve gave (it overrides the
// file's), the flag: an error names the flag or the key, and says what
// is wrong with the file, never the password.
func (c *Config) ClusterRoutes(byFlag map[string]string) (ClusterRoutes, error) {
	name := func(key string) string {
		if f, ok := byFlag[key]; ok {
			return f
		}
		return key
	}
	fail := func(key, format string, args ...any) error {
		if f, ok := byFlag[key]; ok {
			return &Error{Key: f, Msg: fmt.Sprintf(format, args...)}
		}
		return c.At(key, fmt.Sprintf(format, args...))
	}
	h := c.Hub
	if err := clusterFilesTogether(h, name); err != nil {
		return ClusterRoutes{}, fail(err.key, "%s", err.msg)
	}
	var r ClusterRoutes
	if h.ClusterPasswordFile != "" || h.ClusterPasswordEnv != "" {
		pw, err := c.secret(keyClusterPassEnv, h.ClusterPasswordEnv, keyClusterPassFile, h.ClusterPasswordFile)
		if err != nil {
			return ClusterRoutes{}, err
		}
		r.Password = pw
	}
	if h.ClusterCertFile == "" {
		return r, nil
	}
	b, err := secretfile.Read(c.resolvePath(h.ClusterCAFile))
	if err != nil {
		return ClusterRoutes{}, fail(keyClusterCA, "cannot read %s: %v", c.resolvePath(h.ClusterCAFile), secretfile.Reason(err))
	}
	r.CAs = x509.NewCertPool()
	if !r.CAs.AppendCertsFromPEM(b) {
		return ClusterRoutes{}, fail(keyClusterCA, "%s holds no PEM certificate", c.resolvePath(h.ClusterCAFile))
	}
	certFile, keyFile := c.resolvePath(h.ClusterCertFile), c.resolvePath(h.ClusterKeyFile)
	cert, err := secretfile.KeyPair(certFile, keyFile)
	if err != nil {
		return ClusterRoutes{}, fail(keyClusterCert, "cannot load the certificate %s with the key %s (%s): %v", certFile, keyFile, name(keyClusterKey), err)
	}
	if err := bothWays(cert, r.CAs); err != nil {
		return ClusterRoutes{}, fail(keyClusterCert, "%s: %v", certFile, err)
	}
	r.Cert = &cert
	return r, nil
}

// bothWays checks that cert is signed by the CAs and valid both as a TLS
// server's and a TLS client's: a hub dials some of its peers and is
// dialed by the others with the one certificate.
func bothWays(cert tls.Certificate, cas *x509.CertPool) error {
	leaf := cert.Leaf
	if leaf == nil {
		var err error
		if leaf, err = x509.ParseCertificate(cert.Certificate[0]); err != nil {
			return err
		}
	}
	for _, u := range []struct {
		usage x509.ExtKeyUsage
		as    string
	}{{x509.ExtKeyUsageServerAuth, "a TLS server's"}, {x509.ExtKeyUsageClientAuth, "a TLS client's"}} {
		if _, err := leaf.Verify(x509.VerifyOptions{Roots: cas, KeyUsages: []x509.ExtKeyUsage{u.usage}}); err != nil {
			return fmt.Errorf("not valid as %s certificate under the cluster's CA (the routes use it both ways; its extended key usage needs serverAuth and clientAuth): %v", u.as, err)
		}
	}
	return nil
}

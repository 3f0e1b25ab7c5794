package cli

import (
	"path/filepath"

	"a2atop/internal/natsembed"
)

// routeFlags name the files that make the embedded cluster's routes TLS
// with mutual verification; each overrides its [hub] key.
type routeFlags struct {
	caFile, certFile, keyFile string
}

// flags adds them to serve's.
func (r *routeFlags) flags(o *options) {
	o.fs.StringVar(&r.caFile, "cluster-ca-file", "", "the CA, a PEM `FILE`, that signs every hub's cluster certificate: the routes between the hubs are TLS, verified both ways ([hub] cluster_ca_file)")
	o.fs.StringVar(&r.certFile, "cluster-cert-file", "", "this hub's cluster certificate, a PEM `FILE` valid for serverAuth and clientAuth and naming its cluster address ([hub] cluster_cert_file)")
	o.fs.StringVar(&r.keyFile, "cluster-key-file", "", "the key of --cluster-cert-file, a PEM `FILE` ([hub] cluster_key_file)")
}

// clusterRoutes reads what secures the embedded cluster's routes: the
// TLS files of the flags or of [hub], and the password [hub] names.
// An error names the key or the flag and the file.
func (s *session) clusterRoutes(r routeFlags) (natsembed.Routes, error) {
	h := &s.cfg.Hub
	byFlag := map[string]string{}
	for _, f := range []struct {
		v, key, flag string
		to           *string
	}{
		{r.caFile, "hub.cluster_ca_file", "--cluster-ca-file", &h.ClusterCAFile},
		{r.certFile, "hub.cluster_cert_file", "--cluster-cert-file", &h.ClusterCertFile},
		{r.keyFile, "hub.cluster_key_file", "--cluster-key-file", &h.ClusterKeyFile},
	} {
		if f.v == "" {
			continue
		}
		p, err := filepath.Abs(f.v)
		if err != nil {
			p = f.v
		}
		*f.to, byFlag[f.key] = p, f.flag
	}
	cr, err := s.cfg.ClusterRoutes(byFlag)
	if err != nil {
		return natsembed.Routes{}, err
	}
	s.log.Info("the embedded cluster's routes", "tls", cr.TLS(), "password", cr.Password != "")
	return natsembed.Routes{Cert: cr.Cert, CAs: cr.CAs, Password: cr.Password}, nil
}

package cli

import (
	"context"
	"os"

	"a2atop/approvals/jetstore"
	"a2atop/internal/config"
	"a2atop/internal/sanitize"
)

// openRecord opens the team's record in NATS JetStream at urls, with
// the credentials and TLS of [hub.store], as `a2atop journal what`
// (the connection's name, with the host's). On failure it has said why
// and j is nil; code is then the exit status. done closes the journal
// and the store.
func (s *session) openRecord(ctx context.Context, cfg *config.Config, urls []string, replicas int, what string) (j *jetstore.Journal, done func(), code int) {
	tok, err := cfg.StoreToken()
	if err != nil {
		return nil, nil, s.failf(exitUsage, "config: %v", err)
	}
	st := cfg.Hub.Store
	host, _ := os.Hostname()
	store, err := jetstore.Open(ctx, jetstore.Config{URLs: urls, Replicas: replicas, Token: tok, CredsFile: st.CredsFile,
		CAFile: st.CAFile, CertFile: st.CertFile, KeyFile: st.KeyFile, Name: "a2atop journal " + what + " " + host, Logger: s.log})
	if err != nil {
		return nil, nil, s.failf(exitFailed, "%s", sanitize.Line(err.Error(), 500))
	}
	j, err = store.Journal(ctx)
	if err != nil {
		store.Close()
		return nil, nil, s.failf(exitFailed, "%s", sanitize.Line(err.Error(), 500))
	}
	return j, func() { j.Close(); store.Close() }, exitOK
}

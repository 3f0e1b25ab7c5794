package cli

import (
	"context"
	"fmt"
	"strings"

	"a2atop/approvals"
	"a2atop/internal/sanitize"
)

// migrateFlags are the flags of `a2atop journal migrate`.
type migrateFlags struct {
	to       string
	replicas int
}

func (f *migrateFlags) register(o *options) {
	o.fs.StringVar(&f.to, "to", "", "journal migrate: the team's NATS servers, `URL[,URL]` (nats://host:4222); credentials and TLS from [hub.store]")
	o.fs.IntVar(&f.replicas, "replicas", 0, "journal migrate: the replicas of the journal's stream (0: [hub.store] replicas, or 3)")
}

// runJournalMigrate implements `a2atop journal migrate --to URL`: it
// copies the journal file into the team's JetStream record once, and
// verifies it line by line.
func runJournalMigrate(ctx context.Context, o *options, f migrateFlags) int {
	if f.to == "" {
		return o.failf(exitUsage, "journal migrate: say where with --to nats://host:4222")
	}
	cfg, code := o.load(nil)
	if cfg == nil {
		return code
	}
	s := o.open(cfg)
	defer s.Close()
	replicas := f.replicas
	if replicas <= 0 {
		replicas = cfg.Hub.StoreReplicas()
	}
	j, done, code := s.openRecord(ctx, cfg, strings.Split(f.to, ","), replicas, "migrate")
	if j == nil {
		return code
	}
	defer done()
	m, err := approvals.Migrate(cfg.JournalPath, j)
	if err != nil {
		return s.failf(exitFailed, "%s", sanitize.Line(err.Error(), 500))
	}
	fmt.Fprintf(s.st.Out, "copied %d lines of %s into %s (%d replicas), read back and compared line by line: the same",
		m.Lines, cfg.JournalPath, sanitize.Line(j.Where(), 300), replicas)
	if m.Damaged > 0 {
		fmt.Fprintf(s.st.Out, "; %d damaged lines copied as they are (a2atop journal check lists them)", m.Damaged)
	}
	fmt.Fprintln(s.st.Out)
	return exitOK
}

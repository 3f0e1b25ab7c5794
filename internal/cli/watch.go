package cli

import (
	"context"
	"fmt"
)

// runWatch implements `a2atop watch --jsonl`: every watcher event as it
// arrives, one JSON object per line, until SIGINT/SIGTERM (exit 0) or a
// write error (exit 1). A reader that closes the pipe (| head) ends the
// process by SIGPIPE, as for any Unix filter.
func runWatch(ctx context.Context, args []string, st Streams) int {
	fs := newFlags("watch", st)
	cfgPath := fs.String("config", "", "config `FILE` (default $A2ATOP_CONFIG, then ~/.config/a2atop/config.toml)")
	asJSONL := fs.Bool("jsonl", false, "print one JSON object per line (required: the only format for now)")
	urls, err := parseArgs(fs, args)
	if err != nil {
		return flagStatus(err)
	}
	if !*asJSONL {
		fmt.Fprintln(st.Err, "a2atop watch: add --jsonl (JSON lines are the only output format for now)")
		return exitUsage
	}
	cfg, code := loadConfig(*cfgPath, urls, st)
	if cfg == nil {
		return code
	}
	if len(cfg.Agents) == 0 {
		fmt.Fprintln(st.Err, "a2atop watch: no agents: pass agent base URLs, or configure [[agent]] tables (see config.example.toml)")
		return exitUsage
	}
	log, closeLog := openLog(cfg.LogPath, "watch", st)
	defer closeLog()
	mgr, err := newManager(cfg, log)
	if err != nil {
		fmt.Fprintf(st.Err, "a2atop watch: config: %v\n", err)
		return exitUsage
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { mgr.Run(ctx); close(done) }()
	status := exitOK
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case ev := <-mgr.Events():
			if err := writeJSON(st.Out, newJSONEvent(ev)); err != nil {
				log.Error("watch output failed", logKeyErr, err)
				fmt.Fprintf(st.Err, "a2atop watch: %v\n", err)
				status = exitFailed
				break loop
			}
		}
	}
	cancel()
	for {
		select {
		case <-done:
			return status
		case <-mgr.Events():
		}
	}
}

package cli

import "context"

// runWatch implements `a2atop watch --jsonl`: every watcher event as it
// arrives, one JSON object per line, until SIGINT/SIGTERM (exit 0) or a
// write error (exit 1). A reader that closes the pipe (| head) ends the
// process by SIGPIPE, as for any Unix filter.
func runWatch(ctx context.Context, args []string, st Streams) int {
	o := newOptions("watch", st)
	o.configFlag()
	o.requireFormat("jsonl", "print one JSON object per line (required: the only format for now)", "JSON lines are the only output format for now")
	urls, err := o.parse(args)
	if err != nil {
		return flagStatus(err)
	}
	s, mgr, code := o.connect(urls)
	if s == nil {
		return code
	}
	defer s.Close()
	stop := runWatchers(ctx, mgr)
	defer stop()
	for {
		select {
		case <-ctx.Done():
			return exitOK
		case ev := <-mgr.Events():
			if err := writeJSON(st.Out, newJSONEvent(ev)); err != nil {
				s.log.Error("watch output failed", logKeyErr, err)
				return s.failf(exitFailed, "%v", err)
			}
		}
	}
}

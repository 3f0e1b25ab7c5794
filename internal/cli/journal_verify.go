package cli

import (
	"crypto/ed25519"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"a2atop/approvals"
	"a2atop/internal/sanitize"
	"a2atop/internal/secretfile"
)

// runJournalVerify implements `a2atop journal verify [--config FILE]
// [--key FILE] [JOURNAL...]`: it walks the journal's hash chain and its
// signed checkpoints (the configured journal, or the files named, oldest
// first) and reports every break from the first: the line, and what was
// done (a record edited, removed, inserted, reordered, the file cut, a
// checkpoint whose signature fails). --key is the hub's public key
// (`a2atop serve --print-key`, or the journalKey of GET /v1/me): every
// checkpoint must be signed by it. Exit: 0 for a clean chain (it prints
// the count and the head), 1 on a break or when the journal cannot be
// read, 2 on a usage error.
func runJournalVerify(args []string, st Streams) int {
	o := newOptions("journal", st)
	o.configFlag()
	keyFile := o.fs.String("key", "", "the hub's public key `FILE` (a2atop serve --print-key): every checkpoint must be signed by it")
	files, err := o.parse(args)
	if err != nil {
		return flagStatus(err)
	}
	var key ed25519.PublicKey
	if *keyFile != "" {
		b, err := secretfile.Read(*keyFile)
		if err == nil {
			key, err = approvals.ParsePublicKey(b)
		}
		if err != nil {
			return o.failf(exitUsage, "--key %s: %v", *keyFile, err)
		}
	}
	verify := approvals.VerifyCopy // files named: copies an auditor holds, anywhere
	if len(files) == 0 {
		cfg, code := o.load(nil)
		if cfg == nil {
			return code
		}
		if cfg.Hub.Shared() {
			return verifyShared(o, cfg, key)
		}
		if files, err = approvals.SegmentFiles(cfg.JournalPath); err != nil {
			return o.failf(exitFailed, "%s", sanitize.Line(err.Error(), 500))
		}
		verify = approvals.VerifyJournal
	}
	c, err := verify(key, files...)
	if err != nil {
		return o.failf(exitFailed, "%s", sanitize.Line(err.Error(), 500))
	}
	printWalked(st.Out, files)
	if printChain(st.Out, c, files[len(files)-1]) {
		hintSegments(st.Out, files)
		return exitFailed
	}
	return exitOK
}

// printChain says what a walk of the chain found and reports whether
// it found a break.
func printChain(w io.Writer, c approvals.ChainStatus, path string) bool {
	path = sanitize.Line(path, 300)
	if c.Start == 0 {
		fmt.Fprintf(w, "journal %s: no chained record yet (%d lines, %d records written before the chain); the chain starts at the next record written\n", path, c.Lines, c.Legacy)
		return false
	}
	if c.Start > 1 {
		fmt.Fprintf(w, "journal %s: %d record(s) before line %d were written before the chain; they are not covered by it\n", path, c.Legacy, c.Start)
	}
	if c.Broken() {
		fmt.Fprintf(w, "journal %s: the chain is broken (%d chained records read)\n", path, c.Records)
		for _, b := range c.Breaks {
			where := ""
			if b.Path != c.Path {
				where = sanitize.Line(b.Path, 300) + " "
			}
			fmt.Fprintf(w, "%s%s\n", where, sanitize.Line(b.Sentence(), 600))
			if b.Hash != "" {
				fmt.Fprintf(w, "  hash: %s\n", b.Hash)
			}
		}
		if c.More > 0 {
			fmt.Fprintf(w, "and %d more break(s) after these\n", c.More)
		}
		return true
	}
	fmt.Fprintf(w, "journal %s: chain verified: %d records from line %d%s; head %s (seq %d, %s)\n",
		path, c.Records, c.Start, ofFile(c.StartPath, c.Path), c.Head, c.HeadSeq, c.HeadAt.UTC().Format(time.RFC3339))
	printCheckpoints(w, c)
	return false
}

// printCheckpoints says what the signed checkpoints cover.
func printCheckpoints(w io.Writer, c approvals.ChainStatus) {
	switch {
	case c.Checkpoints == 0 && c.Trusted:
		fmt.Fprintf(w, "no checkpoint is signed by %s: this journal is not a hub's, or no hub signed it yet\n", c.Key)
		return
	case c.Checkpoints == 0:
		return
	}
	whose := "given with --key"
	if !c.Trusted {
		whose = "named by the checkpoints themselves: give --key with the hub's public key (a2atop serve --print-key) to prove they are the hub's"
	}
	fmt.Fprintf(w, "checkpoints: %d verify with %s (%s); the last, line %d%s at %s, signs seq %d\n",
		c.Checkpoints, c.Key, whose, c.SignedLine, ofFile(c.SignedPath, c.Path), c.SignedAt.UTC().Format(time.RFC3339), c.SignedSeq-1)
	if c.Unsigned > 0 {
		fmt.Fprintf(w, "%d record(s) after it are not signed yet (a hub signs every %d records and when it stops)\n", c.Unsigned, approvals.DefaultCheckpointEvery)
	}
}

// printWalked says, for a journal in several files (segments), which
// files the walk read, in order.
func printWalked(w io.Writer, files []string) {
	if len(files) < 2 {
		return
	}
	last := files[len(files)-1]
	fmt.Fprintf(w, "journal %s: walked %d segments in order, %s to %s\n", sanitize.Line(last, 300), len(files),
		sanitize.Line(filepath.Base(files[0]), 100), sanitize.Line(filepath.Base(last), 100))
}

// ofFile is " of FILE" (its base name) for a line in another file than
// the journal's last: a walk of several segments numbers lines in each.
func ofFile(file, last string) string {
	if file == "" || file == last {
		return ""
	}
	return " of " + sanitize.Line(filepath.Base(file), 100)
}

// hintSegments says, when a broken walk was given one file that has
// closed segments beside it (a rotated journal's open segment), that its
// chain begins in them.
func hintSegments(w io.Writer, files []string) {
	if len(files) != 1 {
		return
	}
	all, err := approvals.SegmentFiles(files[0])
	if err != nil || len(all) < 2 {
		return
	}
	fmt.Fprintf(w, "%d closed segment(s) lie beside it, and the chain runs through them: verify %s … %s, oldest first (or no file: the configured journal, every segment)\n",
		len(all)-1, sanitize.Line(filepath.Base(all[0]), 100), sanitize.Line(filepath.Base(files[0]), 100))
}

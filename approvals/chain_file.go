package approvals

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// VerifyJournal walks the chain of the journal file at path, holding
// its lock shared (so no write is seen half done), and reports what it
// found: every break, the checkpoints and the head. With key, the
// checkpoints must be signed by it; without, by one key throughout (the
// key the first names, which proves less: see ChainStatus.Trusted). It
// reads the file once and keeps constant memory.
//
// A journal kept in several files (segments) is walked as one: give
// them oldest first; the chain goes on from one to the next, and breaks
// name the file they are in.
func VerifyJournal(key ed25519.PublicKey, paths ...string) (ChainStatus, error) {
	return verifyFiles(key, paths, openJournal, readHead)
}

// VerifyCopy is VerifyJournal of files named by an auditor (a copy of a
// journal, anywhere): they are read as they are, without the journal's
// lock or the state directory's checks, and so is the head file beside
// the last, when there is one.
func VerifyCopy(key ed25519.PublicKey, paths ...string) (ChainStatus, error) {
	return verifyFiles(key, paths, openCopy, readCopyHead)
}

func verifyFiles(key ed25519.PublicKey, paths []string, open opener, head func(string) (*chainLine, error)) (ChainStatus, error) {
	if len(paths) == 0 {
		return ChainStatus{}, errors.New("journal: no file to verify")
	}
	w := newChainWalk(paths[0], key)
	last := paths[len(paths)-1]
	h, err := head(last)
	if err != nil {
		return ChainStatus{}, err
	}
	w.expectHead(h, headPath(last))
	for _, p := range paths {
		w.st.Path = p
		if err := walkFile(&w, p, open); err != nil {
			return ChainStatus{}, err
		}
	}
	return w.status(), nil
}

// opener opens a journal file to walk; done releases it.
type opener func(path string) (r io.Reader, done func(), err error)

// openJournal opens a journal in the state directory as its writers do,
// holding its lock shared, so that no write is seen half done.
func openJournal(path string) (io.Reader, func(), error) {
	s, err := openFileStore(path, true, time.Now)
	if err != nil {
		return nil, nil, err
	}
	if s.r == nil {
		s.close()
		return nil, nil, fmt.Errorf("journal %s: no such file", path)
	}
	unlock, err := s.lock(false)
	if err != nil {
		s.close()
		return nil, nil, err
	}
	return s.r, func() { unlock(); s.close() }, nil
}

func openCopy(path string) (io.Reader, func(), error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("journal: %w", err)
	}
	return f, func() { f.Close() }, nil
}

// walkFile feeds the walk the lines of one file, numbered from 1.
func walkFile(w *chainWalk, path string, open opener) error {
	r, done, err := open(path)
	if err != nil {
		return err
	}
	defer done()
	br := bufio.NewReaderSize(r, 1<<20)
	n := 0
	w.lastN = 0 // line numbers start again in each file
	for {
		raw, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			raw, err = readLong(br, raw)
		}
		if len(raw) == 0 && errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("journal: read %s: %w", path, err)
		}
		n++
		torn := !bytes.HasSuffix(raw, []byte("\n"))
		w.add(parseChainLine(n, bytes.TrimSuffix(raw, []byte("\n")), torn))
		if torn {
			return nil
		}
	}
}

// readLong reads the rest of a line longer than the reader's buffer.
func readLong(br *bufio.Reader, first []byte) ([]byte, error) {
	b := bytes.Clone(first)
	for {
		more, err := br.ReadSlice('\n')
		b = append(b, more...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return b, err
		}
	}
}

// chainFields are the members of a record a walk reads; the rest (the
// parts above all) are skipped.
type chainFields struct {
	V        int       `json:"v"`
	Type     string    `json:"type"`
	At       time.Time `json:"at"`
	Approver string    `json:"approver"`
	Line     int       `json:"line"`
	Hash     string    `json:"hash"`
	Key      string    `json:"key"`
	Sig      string    `json:"sig"`
	Seq      int       `json:"seq"`
	Prev     string    `json:"prev"`
	Sum      string    `json:"sum"`
}

// parseChainLine reads one line of a file as parseLine judges it (a
// record only when it parses, its version and type are known and its
// checksum matches), keeping what the walk needs.
func parseChainLine(n int, raw []byte, torn bool) chainLine {
	c := chainLine{n: n, sum: sha256.Sum256(raw), torn: torn}
	b := bytes.TrimSpace(raw)
	if len(b) == 0 {
		c.blank, c.why = true, "a blank line"
		return c
	}
	var f chainFields
	if err := json.Unmarshal(b, &f); err != nil {
		c.why = fmt.Sprintf("not a JSON record (%v)", err)
		return c
	}
	switch {
	case f.V == 1 && f.Sum == "":
	case f.V == 1:
		c.why = "a version 1 record with a checksum (the version byte changed?)"
	case f.V == formatVersion:
		if err := checkSum(b, f.Sum); err != nil {
			c.why = err.Error()
		}
	default:
		c.why = fmt.Sprintf("unknown format version %d", f.V)
	}
	if c.why == "" && !knownType(f.Type) {
		c.why = fmt.Sprintf("unknown record type %q", f.Type)
	}
	if c.why != "" {
		return c
	}
	c.rec, c.typ, c.seq, c.prev, c.at = true, f.Type, f.Seq, f.Prev, f.At
	c.tornLine, c.tornHash, c.key, c.sig, c.by = f.Line, f.Hash, f.Key, f.Sig, f.Approver
	return c
}

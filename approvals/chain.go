package approvals

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
)

// The chain. Every record a2atop writes carries "seq", its place in the
// chain (1 for the first chained record), and "prev", "sha256:…" of the
// exact bytes of the line before it in the file (without the newline;
// none for the first line of a journal). The records of one journal form
// one chain whoever writes them: each writer links its records to the
// file's last line under the journal's exclusive lock. A journal written
// before the chain existed starts its chain at its first chained record,
// whose prev names the last line before it.
//
// A hub (Options.Checkpoints) also writes, every Every records and when
// it stops, a "checkpoint" record: its own seq and prev (the head it
// signs: the line before it, which names every line before that through
// the chain), "key" (the hub's Ed25519 public key, "ed25519:BASE64") and
// "sig", the Ed25519 signature (standard base64) of
// checkpointMessage(seq, prev): a2atop-journal-checkpoint:SEQ:PREV.
//
// A "chain-accepted" record says that the hub was started, told to
// (--accept-broken-chain), on a chain that broke at line "line" (whose
// bytes "hash" names); "note" says how. Later walks show the breaks
// before it as accepted, and the hub starts.
//
// A store that writes lines (the file; another store later) keeps a
// chainTail: observe every line it reads or writes, in order, and link
// every record before it is encoded. A journal that continues in a new
// file (a segment) keeps its tail: the first record of the new file links
// to the last line of the old, and its seq follows on.

// DefaultCheckpointEvery is how many records a hub writes between two
// checkpoints when Checkpoints.Every is 0.
const DefaultCheckpointEvery = 100

// Checkpoints make a Service sign the chain's head (a hub's journal).
type Checkpoints struct {
	// Key signs the checkpoints (LoadSigningKey).
	Key ed25519.PrivateKey
	// Every is how many records come between two checkpoints; 0 =
	// DefaultCheckpointEvery.
	Every int
}

func (c *Checkpoints) every() int {
	if c.Every <= 0 {
		return DefaultCheckpointEvery
	}
	return c.Every
}

// Public is the key that verifies the checkpoints.
func (c *Checkpoints) Public() ed25519.PublicKey {
	return c.Key.Public().(ed25519.PublicKey)
}

// chainTail is what a writer needs of the journal's end to link the next
// record: the last line's hash, the last chained record's seq, and how
// many records came since the last checkpoint. The zero value is an
// empty journal.
type chainTail struct {
	sum   [32]byte
	lines bool // a line was observed: sum is its hash
	seq   int
	since int
}

// observe notes a line of the journal (read or written), in order: its
// bytes, and the record it is (nil or a line with err when it is none).
func (t *chainTail) observe(raw []byte, l *line) {
	t.sum, t.lines = sha256.Sum256(raw), true
	if l == nil || l.err != nil || l.rec.Seq == 0 {
		return
	}
	t.seq = l.rec.Seq
	if l.rec.Type == recCheckpoint {
		t.since = 0
	} else {
		t.since++
	}
}

// link gives r its place after the journal's last line.
func (t *chainTail) link(r *record) {
	r.Seq, r.Prev = t.seq+1, ""
	if t.lines {
		r.Prev = sumText(t.sum)
	}
}

func sumText(sum [32]byte) string { return "sha256:" + hex.EncodeToString(sum[:]) }

// sumIs reports whether s is sumText(sum), without making the text.
func sumIs(s string, sum [32]byte) bool {
	var b [len("sha256:") + 64]byte
	copy(b[:], "sha256:")
	hex.Encode(b[len("sha256:"):], sum[:])
	return string(b[:]) == s
}

// parseSum reads a "sha256:…" hash.
func parseSum(s string) ([32]byte, bool) {
	var out [32]byte
	h, ok := strings.CutPrefix(s, "sha256:")
	if !ok || len(h) != 64 {
		return out, false
	}
	if _, err := hex.Decode(out[:], []byte(h)); err != nil {
		return out, false
	}
	return out, true
}

// checkpointMessage is what a checkpoint's signature signs.
func checkpointMessage(seq int, prev string) []byte {
	return []byte("a2atop-journal-checkpoint:" + strconv.Itoa(seq) + ":" + prev)
}

// signCheckpoint fills a linked checkpoint record's key and signature.
func signCheckpoint(r *record, c *Checkpoints) error {
	if c == nil || len(c.Key) != ed25519.PrivateKeySize {
		return errors.New("journal: a checkpoint needs the hub's signing key")
	}
	r.Key = KeyText(c.Public())
	r.Sig = base64.StdEncoding.EncodeToString(ed25519.Sign(c.Key, checkpointMessage(r.Seq, r.Prev)))
	return nil
}

// chainRecords links recs after the tail t, signs their checkpoints and
// adds one after each Every-th record since the last (with c), and
// encodes them as lines numbered from n; checkpoint makes the record of
// an added checkpoint. A checkpoint with nothing to sign since the last
// is dropped.
func chainRecords(t *chainTail, c *Checkpoints, recs []record, n int, checkpoint func() record) ([]byte, []line, error) {
	var buf []byte
	written := make([]line, 0, len(recs)+1)
	add := func(r record) error {
		t.link(&r)
		if r.Type == recCheckpoint {
			if err := signCheckpoint(&r, c); err != nil {
				return err
			}
		}
		b, err := encodeRecord(r)
		if err != nil {
			return err
		}
		r.V = formatVersion
		l := line{n: n, raw: b, rec: r}
		t.observe(b, &l)
		written = append(written, l)
		buf = append(append(buf, b...), '\n')
		n++
		return nil
	}
	for _, r := range recs {
		if r.Type == recCheckpoint && t.since == 0 {
			continue
		}
		if err := add(r); err != nil {
			return nil, nil, err
		}
		if c != nil && t.since >= c.every() {
			if err := add(checkpoint()); err != nil {
				return nil, nil, err
			}
		}
	}
	return buf, written, nil
}

// chainRead parses a line read from the file and notes it as the tail;
// a blank line is not passed on (it is still a line of the chain).
func (s *fileStore) chainRead(out []line, n int, raw []byte, torn bool) []line {
	l := parseLine(n, raw, torn)
	s.chain.observe(raw, &l)
	if !torn && len(bytes.TrimSpace(raw)) == 0 {
		return out
	}
	return append(out, l)
}

// errNoCheckpoints is Service.Checkpoint on a Service without a key.
var errNoCheckpoints = errors.New("journal: this journal has no signing key (only a hub signs checkpoints)")

func (s *fileStore) checkpointRecord() record {
	return record{Type: recCheckpoint, At: s.now().UTC()}
}

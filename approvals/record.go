package approvals

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// Record types in the journal file (see the package doc).
const (
	recDecision = "decision"
	recRetry    = "retry"
	recOutcome  = "outcome"
	recState    = "state"
	recTorn     = "torn" // a line that a write never finished, named by the next writer
	recAck      = "ack"  // an operator resolved a damaged line after looking at it
	recVote     = "vote" // one approver's vote under an agent's approval policy (vote.go)

	recCheckpoint  = "checkpoint"     // a signature of the chain's head (chain.go)
	recChainAccept = "chain-accepted" // the hub started on a broken chain, told to (chain.go)
)

// formatVersion is the "v" of the records written now: version 2 adds
// the checksum ("sum") and the agent's identity. Version 1 records (no
// checksum) are still read.
const formatVersion = 2

// record is one line of the journal file. Sum stays last: encodeRecord
// appends it to the encoded record, parseLine checks it over the bytes
// before it.
type record struct {
	V        int              `json:"v"`
	Type     string           `json:"type"`
	ID       string           `json:"id,omitempty"`
	At       time.Time        `json:"at"`
	Agent    string           `json:"agent,omitempty"`
	URL      string           `json:"url,omitempty"`
	Tenant   string           `json:"tenant,omitempty"`
	Task     a2a.TaskID       `json:"task,omitempty"`
	Context  string           `json:"context,omitempty"`
	Kind     Kind             `json:"kind,omitempty"`
	Prompt   string           `json:"prompt,omitempty"`
	State    a2a.TaskState    `json:"state,omitempty"`
	Parts    a2a.ContentParts `json:"parts,omitempty"`
	Reason   string           `json:"reason,omitempty"`
	Approver string           `json:"approver,omitempty"`
	By       string           `json:"by,omitempty"` // a retry: who sent the approver's decision again
	Refs     []a2a.TaskID     `json:"refs,omitempty"`
	Attempt  int              `json:"attempt,omitempty"`
	Host     string           `json:"host,omitempty"`
	PID      int              `json:"pid,omitempty"`
	Svc      string           `json:"svc,omitempty"` // the writing Service's id in its process (see sendingElsewhere)
	Until    time.Time        `json:"until,omitzero"`
	Result   Result           `json:"result,omitempty"`
	Problem  Problem          `json:"problem,omitempty"`
	Error    string           `json:"error,omitempty"`
	Via      string           `json:"via,omitempty"`
	From     a2a.TaskState    `json:"from,omitempty"`
	To       a2a.TaskState    `json:"to,omitempty"`
	Source   string           `json:"source,omitempty"`
	Note     string           `json:"note,omitempty"`
	Line     int              `json:"line,omitempty"`
	Hash     string           `json:"hash,omitempty"`
	Votes    []Voter          `json:"votes,omitempty"`   // a decision that completed a policy: the votes it counted
	Seg      *segmentInfo     `json:"seg,omitempty"`     // a segment's first line (segment.go)
	Carried  int              `json:"carried,omitempty"` // restated at the start of segment Carried
	Key      string           `json:"key,omitempty"`     // a checkpoint: the public key that signed it
	Sig      string           `json:"sig,omitempty"`     // a checkpoint: its signature
	Seq      int              `json:"seq,omitempty"`     // the record's place in the chain (chain.go)
	Prev     string           `json:"prev,omitempty"`    // "sha256:…" of the line before it
	Sum      string           `json:"sum,omitempty"`
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// sumLen is the length of the checksum's place at the end of a record:
// `,"sum":"0123abcd"}`.
const sumLen = len(`,"sum":"0123abcd"}`)

// encodeRecord encodes r as one line of format version 2 (without the
// newline): the JSON object, its last member "sum" the CRC-32C of the
// object's bytes without that member. Any byte changed afterwards makes
// the line fail parseLine.
func encodeRecord(r record) ([]byte, error) {
	r.V, r.Sum = formatVersion, ""
	b, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("journal: encode %s record: %w", r.Type, err)
	}
	sum := crc32.Checksum(b, castagnoli)
	return fmt.Appendf(b[:len(b)-1], `,"sum":"%08x"}`, sum), nil
}

// line is one line of the journal as read back.
type line struct {
	n    int    // 1-based line number in the file
	raw  []byte // its bytes, without the newline
	rec  record // the record, when err is nil
	err  error  // why the line is not a record
	torn bool   // the last line, without its newline: a write that never finished
	// walkOnly is a line the chain's walk takes but nothing folds: the
	// header and restated records of a segment whose predecessor was read
	// (restated), or the last line of the segment before the one a reader
	// starts at (seed). See segment_chain.go.
	walkOnly walkOnly
}

// parseLine reads one line back. A line is a record only if it is a
// JSON object of a known format version and type whose checksum (format
// 2) matches.
func parseLine(n int, raw []byte, torn bool) line {
	l := line{n: n, raw: raw, torn: torn}
	b := bytes.TrimSpace(raw)
	var r record
	if err := json.Unmarshal(b, &r); err != nil {
		l.err = fmt.Errorf("not a JSON record (%v)", err)
		return l
	}
	switch {
	case r.V == 1 && r.Sum == "": // written before records had checksums
	case r.V == 1:
		l.err = fmt.Errorf("a version 1 record with a checksum (the version byte changed?)")
	case r.V == formatVersion:
		l.err = checkSum(b, r.Sum)
	default:
		l.err = fmt.Errorf("unknown format version %d", r.V)
	}
	if l.err == nil && !knownType(r.Type) {
		l.err = fmt.Errorf("unknown record type %q", r.Type)
	}
	if l.err == nil {
		l.rec = r
	}
	return l
}

// checkSum checks the checksum of a version 2 line.
func checkSum(b []byte, sum string) error {
	if len(b) < sumLen || !bytes.HasPrefix(b[len(b)-sumLen:], []byte(`,"sum":"`)) || len(sum) != 8 {
		return fmt.Errorf("its checksum is missing")
	}
	body := append(bytes.Clone(b[:len(b)-sumLen]), '}')
	if want := fmt.Sprintf("%08x", crc32.Checksum(body, castagnoli)); want != sum || string(b[len(b)-10:len(b)-2]) != sum {
		return fmt.Errorf("its checksum does not match: a byte of it changed")
	}
	return nil
}

func knownType(t string) bool {
	switch t {
	case recDecision, recRetry, recOutcome, recState, recTorn, recAck, recVote, recSegment, recCheckpoint, recChainAccept:
		return true
	}
	return false
}

// lineHash names a line's exact bytes, so that an acknowledgement holds
// for the line the operator looked at and no other.
func lineHash(raw []byte) string {
	h := sha256.Sum256(raw)
	return "sha256:" + hex.EncodeToString(h[:])
}

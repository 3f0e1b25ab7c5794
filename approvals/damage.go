package approvals

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// ProblemDamaged is the refusal of a decision on an agent whose
// decisions a damaged journal line may hide (see Damage).
const ProblemDamaged Problem = "journal-damaged"

// ErrJournalDamaged is returned for a decision on an agent while a
// damaged line of the journal may hold a decision on it: the journal can
// no longer tell whether the prompt was answered. An operator looks at
// the line (a2atop journal check) and accepts it (Service.Accept).
var ErrJournalDamaged = errors.New("the journal has a damaged line that may hold a decision")

// Damage is a line of the journal that is not a record: damaged (a byte
// changed, a line cut or joined: it does not parse or its checksum does
// not match), a record that names a decision no readable line holds, or
// torn (a write that never finished, after a crash). A damaged line stands
// for "a decision may exist": it blocks new decisions on the agent it
// names, or on every agent when it names none the journal knows, until an
// operator accepts it. A torn line blocks only when it holds a decision.
// Whether that decision reached the agent is unknown until GetTask
// settles it: a crash during the write leaves a decision that was never
// sent (nothing leaves before the record is fsynced), but a file cut
// afterwards (a copy, a restore, a disk) leaves one that may have been
// delivered. Reconcile resolves the line once GetTask shows the agent
// does not hold its messageId; one the agent holds (Delivered) stays for
// an operator.
type Damage struct {
	Path   string // the journal
	Line   int    // 1-based line number, in the whole journal (across segments)
	Hash   string // "sha256:…" of the line's bytes: an acceptance holds for these bytes only
	Reason string // what is wrong with it
	Torn   bool

	// File and FileLine are the file that holds the line and its number
	// there: Path and Line, unless the journal was rotated (segments).
	File     string
	FileLine int

	// What could be read from the line ("" when nothing could): its
	// record type, the agent (by the name it has now), the task, the
	// messageId.
	Type      string
	Agent     string
	AgentURL  string
	TaskID    a2a.TaskID
	MessageID string

	// Blocks is true when the line refuses new decisions: on Agent, or on
	// every agent when AllAgents.
	Blocks    bool
	AllAgents bool

	// Delivered is true once GetTask showed that the agent holds the
	// messageId of this torn decision (Reconcile): it was sent, and
	// only an operator resolves the line.
	Delivered bool

	// AcceptedBy and AcceptedAt say who resolved the line, and when;
	// AcceptNote how (an operator, or Reconcile for a torn decision).
	AcceptedBy string
	AcceptedAt time.Time
	AcceptNote string

	agentID string // "" with AllAgents
}

// Open reports whether the line still refuses new decisions.
func (d Damage) Open() bool { return d.Blocks && d.AcceptedBy == "" }

// Scope names what the line blocks: "deployer", "every agent".
func (d Damage) Scope() string {
	if d.AllAgents {
		return "every agent"
	}
	return d.Agent
}

// Recovered lists what could be read from the line, as "agent deployer,
// task 4b9393bc…, messageId 0190…", or "nothing readable".
func (d Damage) Recovered() string {
	var p []string
	if d.Type != "" {
		p = append(p, "record type "+shown(d.Type))
	}
	if d.Agent != "" || d.AgentURL != "" {
		a := shown(d.Agent)
		if d.AgentURL != "" && d.Agent != d.AgentURL {
			a = strings.TrimSpace(a + " " + shown(d.AgentURL))
		}
		p = append(p, "agent "+a)
	}
	if d.TaskID != "" {
		p = append(p, "task "+shown(string(d.TaskID)))
	}
	if d.MessageID != "" {
		p = append(p, "messageId "+shown(d.MessageID))
	}
	if len(p) == 0 {
		return "nothing readable"
	}
	return strings.Join(p, ", ")
}

// shown is s as read, or quoted with escapes when it holds anything but
// printable characters: what a damaged line holds is shown, never obeyed.
func shown(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) || r == '"' }) >= 0 {
		return strconv.QuoteToASCII(s)
	}
	return s
}

// Words says in one line what the line is and what it blocks, naming
// the file and the line.
func (d Damage) Words() string {
	where := d.where()
	switch {
	case d.Torn && !d.Blocks:
		return where + " is a torn line (a crash during a write); it holds no decision, nothing is blocked"
	case d.Torn && d.Delivered:
		return fmt.Sprintf("%s is a cut decision (%s); %s; new decisions on %s are refused until an operator looks at it (a2atop journal check)",
			where, d.Recovered(), d.Delivery(), d.Scope())
	case d.Torn:
		return fmt.Sprintf("%s is a cut decision (%s); %s; new decisions on %s wait until it is reconciled or accepted",
			where, d.Recovered(), d.Delivery(), d.Scope())
	}
	return fmt.Sprintf("%s is damaged (%s); it may hold a decision (%s): new decisions on %s are refused until an operator looks at it (a2atop journal check)",
		where, d.Reason, d.Recovered(), d.Scope())
}

// where names the line: "journal PATH line N", and its line in its file
// when that is another (a rotated journal: "(line 7 of the file)").
func (d Damage) where() string {
	w := fmt.Sprintf("journal %s line %d", d.Path, d.Line)
	switch {
	case d.FileLine == 0 || (d.File == d.Path && d.FileLine == d.Line):
	case d.File == d.Path:
		w += fmt.Sprintf(" (line %d of the file)", d.FileLine)
	default:
		w += fmt.Sprintf(" (line %d of the file %s)", d.FileLine, d.File)
	}
	return w
}

// Delivery says whether a torn decision reached its agent: unknown
// until GetTask settles it, or delivered once GetTask showed the agent
// holds its messageId. "" for a line that holds no torn decision.
func (d Damage) Delivery() string {
	switch {
	case !d.Torn || !d.Blocks:
		return ""
	case d.Delivered:
		return fmt.Sprintf("it was delivered: GetTask shows %s holds messageId %s", d.Agent, shown(d.MessageID))
	}
	return "whether it reached the agent is unknown until GetTask settles it (a crash in its write, or a file cut after its send)"
}

type ackKey struct {
	line int
	hash string
}

type ack struct {
	by, note string
	at       time.Time
}

// field finds `"key":"value"` in a line that does not parse.
var field = regexp.MustCompile(`"(type|id|agent|url|tenant|task)"\s*:\s*"((?:[^"\\]|\\.){0,512})"`)

// recoverFields reads what it can of a damaged line: the first value of
// each field the records put before their parts.
func recoverFields(raw []byte) map[string]string {
	out := map[string]string{}
	for _, m := range field.FindAllSubmatch(raw, -1) {
		k := string(m[1])
		if _, seen := out[k]; !seen {
			out[k] = string(m[2])
		}
	}
	return out
}

// noteDamage records a line that is not a record. Callers hold s.mu.
func (s *Service) noteDamage(l line) {
	f := recoverFields(l.raw)
	d := &Damage{Path: s.st.where(), Line: l.n, Hash: lineHash(l.raw), Reason: l.err.Error(), Torn: l.torn,
		Type: f["type"], TaskID: a2a.TaskID(f["task"]), MessageID: f["id"], AgentURL: f["url"]}
	d.File, d.FileLine = s.fileLine(l.n)
	s.scopeDamage(d, f["agent"], f["url"], f["tenant"])
	s.addDamage(d)
}

// noteOrphan records a record that names a decision no readable line
// holds: the decision's line was lost or damaged. Callers hold s.mu.
func (s *Service) noteOrphan(l line) {
	r := l.rec
	for _, d := range s.damage {
		if d.MessageID == r.ID {
			return // the damaged line of its decision stands for it
		}
	}
	d := &Damage{Path: s.st.where(), Line: l.n, Hash: lineHash(l.raw), Type: r.Type, TaskID: r.Task, MessageID: r.ID,
		AgentURL: r.URL, Reason: fmt.Sprintf("a %s record of decision %s, which no readable line of the journal holds", r.Type, r.ID)}
	d.File, d.FileLine = s.fileLine(l.n)
	s.scopeDamage(d, r.Agent, r.URL, r.Tenant)
	s.addDamage(d)
}

// scopeDamage decides what a damaged line blocks: the agent it names when
// that is an agent the journal knows (configured, or named by a readable
// record), else every agent.
func (s *Service) scopeDamage(d *Damage, name, rawURL, tenant string) {
	d.Blocks = !d.Torn || d.Type == recDecision || d.Type == recRetry
	d.AllAgents = true
	if name == "" && rawURL == "" {
		return
	}
	rs := s.book.resolve(name, rawURL, tenant)
	known := s.book.nameOf(rs.id) != "" || s.seenAgents[rs.id]
	for _, e := range s.entries {
		known = known || e.agentID == rs.id
	}
	if known {
		d.agentID, d.Agent, d.AllAgents = rs.id, rs.name, false
	} else if d.Agent == "" {
		d.Agent = name
	}
}

func (s *Service) addDamage(d *Damage) {
	s.version++
	if a, ok := s.acks[ackKey{d.Line, d.Hash}]; ok {
		d.AcceptedBy, d.AcceptedAt, d.AcceptNote = a.by, a.at, a.note
	}
	s.damage[d.Line] = d
	if s.loaded {
		s.freshDamage = append(s.freshDamage, d.Line)
	}
	if d.Open() {
		s.log.Warn("journal line damaged: new decisions refused until an operator looks (a2atop journal check)",
			"path", d.Path, "line", d.Line, "reason", d.Reason, "blocks", d.Scope())
	}
}

// markTorn applies a "torn" record: the line it names is a write that
// never finished, not damage.
func (s *Service) markTorn(r record) {
	d := s.damage[r.Line]
	if d == nil || d.Hash != r.Hash || d.Torn {
		return
	}
	d.Torn = true
	d.Blocks = d.Type == recDecision || d.Type == recRetry
}

// noteAck applies an "ack" record: an operator (or Reconcile) resolved
// the line it names, as long as the line has the bytes they looked at.
func (s *Service) noteAck(r record) {
	a := ack{by: r.Approver, at: r.At, note: r.Note}
	if a.by == "" {
		a.by = "unknown"
	}
	s.acks[ackKey{r.Line, r.Hash}] = a
	if d := s.damage[r.Line]; d != nil && d.Hash == r.Hash {
		d.AcceptedBy, d.AcceptedAt, d.AcceptNote = a.by, a.at, a.note
	}
}

// blocked returns the first open damage that blocks decisions on the
// agent with this identity. Callers hold s.mu.
func (s *Service) blocked(agentID string) *Damage {
	var first *Damage
	for _, d := range s.damage {
		if d.Open() && (d.AllAgents || d.agentID == agentID) && (first == nil || d.Line < first.Line) {
			first = d
		}
	}
	return first
}

func damagedErr(d *Damage) error {
	return fmt.Errorf("%w: %s", ErrJournalDamaged, d.Words())
}

// Damage returns every line of the journal that is not a record, in line
// order: damaged lines, torn lines, those an operator accepted. The
// dashboard's banner shows those that are Open.
func (s *Service) Damage() []Damage {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Damage, 0, len(s.damage))
	for _, d := range s.damage {
		out = append(out, *d)
	}
	slices.SortFunc(out, func(a, b Damage) int { return a.Line - b.Line })
	return out
}

// Blocking returns the damaged lines that refuse new decisions now, in
// line order: what the dashboard's banner names.
func (s *Service) Blocking() []Damage {
	var out []Damage
	for _, d := range s.Damage() {
		if d.Open() {
			out = append(out, d)
		}
	}
	return out
}

// Damaged is the number of damaged lines that refuse new decisions now.
func (s *Service) Damaged() int { return len(s.Blocking()) }

// Accept records that an operator looked at a damaged line and resolved
// it: an "ack" record naming the line and the hash of its bytes is
// appended (the journal is never rewritten), and the line no longer
// blocks. note says what they found; it is kept in the record.
func (s *Service) Accept(lineNo int, note string) (Damage, error) {
	var got Damage
	err := s.appendChecked(func() ([]record, error) {
		d := s.damage[lineNo]
		switch {
		case d == nil:
			return nil, fmt.Errorf("journal %s line %d is not damaged: nothing to accept", s.st.where(), lineNo)
		case d.AcceptedBy != "":
			return nil, fmt.Errorf("journal %s line %d was accepted already, by %s at %s", s.st.where(), lineNo,
				d.AcceptedBy, d.AcceptedAt.UTC().Format(time.RFC3339))
		case !d.Blocks:
			return nil, fmt.Errorf("journal %s line %d is a torn line that holds no decision: it blocks nothing", s.st.where(), lineNo)
		}
		got = *d
		return []record{{Type: recAck, Line: d.Line, Hash: d.Hash, Approver: s.o.Approver, Note: note}}, nil
	})
	if err != nil {
		return Damage{}, err
	}
	s.mu.Lock()
	got = *s.damage[lineNo]
	s.mu.Unlock()
	return got, nil
}

package approvals

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/model"
)

// Team mode. A team runs one hub (a2atop serve) that holds the journal
// and sends every decision; each operator's dashboard is attached to it.
// The hub's Service is an ordinary one whose journal lines are published
// (Options.OnJournal) and which prepares a decision again for the
// operator who asked (PrepareAs, RetryAs, FollowUpAs) to check that the
// message the dashboard showed is the one it sends. A dashboard's Service
// is opened with Options.Hub: it keeps no journal of its own but the
// hub's, as the feed delivers it (Follow), prepares decisions locally
// from it as always, and sends them, reconciles and notes through the
// Hub. The first decision on a prompt wins across the team because one
// Service, the hub's, decides them all.

// Hub is what a Service attached to a team's hub sends instead of
// sending to agents or writing a journal. It is satisfied by the hub's
// client (package hubclient), which speaks HTTP; approvals does not.
type Hub interface {
	// Send asks the hub to send a decision prepared here. The hub checks
	// the operator's role, the prompt, and that the message is the one
	// it builds for this operator from the same input, then sends it
	// with its own Service. The Outcome is the hub's; a decision another
	// operator made first comes back refused with its Winner.
	Send(ctx context.Context, r Request) Outcome
	// Reconcile asks the hub to reconcile its open decisions.
	Reconcile(ctx context.Context) []Outcome
	// NoteLeft asks the hub to journal that a task left the inbox while
	// this operator was writing an answer (see Service.NoteLeft).
	NoteLeft(ctx context.Context, n Note) error
}

// Request is a decision as a dashboard sends it to its hub: the decision
// as prepared (Message is exactly what the operator confirmed) and what
// the operator typed, from which the hub builds the message again.
type Request struct {
	Decision Decision
	Input    Input
}

// Note is what Service.NoteLeft records.
type Note struct {
	Agent    string
	TaskID   a2a.TaskID
	From, To a2a.TaskState
	Text     string
}

// JournalLine is one line of a journal as a hub publishes it and an
// attached dashboard follows it: its 1-based number in the hub's file,
// its bytes without the newline, and whether it was the file's torn last
// line when read.
type JournalLine struct {
	N    int
	Raw  []byte
	Torn bool
}

// Author is who a decision is prepared for, and the messageId and time
// it carries. The zero MessageID and At are made when the decision is
// built (Options.NewID, Options.Now); a hub fills them with those the
// dashboard chose, so that it builds the very same message.
type Author struct {
	Approver  string
	MessageID string
	At        time.Time
}

// author is the Service's own: its approver, a new messageId, now.
func (s *Service) author() Author { return Author{Approver: s.o.Approver} }

// who is the approver a is for: its own, or the Service's.
func (a Author) who(o Options) string {
	if a.Approver != "" {
		return a.Approver
	}
	return o.Approver
}

func (a Author) fill(o Options) Author {
	if a.Approver == "" {
		a.Approver = o.Approver
	}
	if a.MessageID == "" {
		a.MessageID = o.NewID()
	}
	if a.At.IsZero() {
		a.At = o.Now().UTC()
	}
	return a
}

// Input is what the operator typed for the decision (zero for a retry
// or a follow-up, which carry what was sent before).
func (d *Decision) Input() Input { return d.in }

// PrepareAs is Prepare for another approver, with the messageId and time
// of a, as a hub builds the decision a dashboard prepared.
func (s *Service) PrepareAs(it Item, in Input, a Author) (*Decision, error) {
	return s.prepare(it, in, a)
}

// RetryAs is Retry for another approver at a.At.
func (s *Service) RetryAs(messageID string, a Author) (*Decision, error) {
	a.MessageID = ""
	return s.retry(messageID, a)
}

// FollowUpAs is PrepareFollowUp for another approver, with a's messageId
// and time.
func (s *Service) FollowUpAs(messageID string, a Author) (*Decision, error) {
	return s.prepareFollowUp(messageID, a)
}

// ErrNotTheMessage is returned by SameMessage: the decision a dashboard
// sent is not the one its hub builds from the same input.
var ErrNotTheMessage = errors.New("the message is not the one the hub builds for this input")

// SameMessage checks that got (a decision a dashboard prepared) would
// send and journal exactly what want (the decision prepared again from
// the same input) does: the same task, prompt, kind, approver, time,
// messageId, prior decision and parts. The error names the first field
// that differs and wraps ErrNotTheMessage.
func SameMessage(got, want *Decision) error {
	differ := func(what string) error { return fmt.Errorf("%w: its %s differs", ErrNotTheMessage, what) }
	switch {
	case got == nil || got.Message == nil:
		return differ("message")
	case got.MessageID != want.MessageID || got.Message.ID != want.Message.ID:
		return differ("messageId")
	case got.Agent != want.Agent || got.TaskID != want.TaskID || got.Message.TaskID != want.Message.TaskID:
		return differ("task")
	case got.ContextID != want.ContextID || got.Message.ContextID != want.Message.ContextID:
		return differ("contextId")
	case got.Kind != want.Kind || got.Attempt != want.Attempt || got.Again != want.Again:
		return differ("kind")
	case got.Prompt != want.Prompt || got.State != want.State:
		return differ("prompt")
	case got.PriorID != want.PriorID:
		return differ("prior decision")
	case got.Approver != want.Approver || got.SentBy != want.SentBy:
		return differ("approver")
	case !got.At.Equal(want.At):
		return differ("time")
	case got.Reason != want.Reason:
		return differ("reason")
	case got.Message.Role != want.Message.Role || !slices.Equal(got.Message.ReferenceTasks, want.Message.ReferenceTasks):
		return differ("message header")
	}
	if want.Vote != nil {
		// A vote's message names the voters the journal holds when it is
		// recorded: the hub builds it then, from the same input.
		return nil
	}
	a, errA := json.Marshal(a2a.ContentParts(got.Message.Parts))
	b, errB := json.Marshal(a2a.ContentParts(want.Message.Parts))
	if errA != nil || errB != nil || !bytes.Equal(a, b) {
		return differ("parts")
	}
	return nil
}

// ItemOf builds the inbox item of one task of the fleet, with its place
// in its chain (Actionable only for the task at the end of it), as Queue
// would, without building the whole queue. It reads the fleet: call it
// on the goroutine that owns it.
func (s *Service) ItemOf(f *model.Fleet, k model.TaskKey) (Item, bool) {
	t := f.Task(k)
	if t == nil {
		return Item{}, false
	}
	leaf := t
	if t.Class == model.ClassInterrupted {
		leaf, _ = walkToLeaf(f, t)
	}
	return s.item(f, t, leaf, 0), true
}

// Winner is the decision that was made first on a prompt, for the
// operator whose decision on it came second: who made it, when, and
// where it stands.
type Winner struct {
	Approver string
	At       time.Time
	Kind     Kind
	Result   Result
	Problem  Problem
	State    a2a.TaskState
	// Said is what the decision sent, in short: a reply's text (and
	// "+ data"), a deny's or an approve's reason; "" for none.
	Said string
}

// WinnerOf is the Winner a journal entry stands for.
func WinnerOf(e Entry) *Winner {
	return &Winner{Approver: e.Approver, At: e.DecidedAt, Kind: e.Kind, Result: e.Result, Problem: e.Problem, State: e.AgentState(),
		Said: SaidOf(e.Kind, e.Reason, e.Parts)}
}

// saidMax is how much of what a decision said a Winner keeps.
const saidMax = 120

// SaidOf says in short what a decision of kind sent: for a reply its
// text, first line, cut to about 120 characters (with "+ data" when it
// carries data); for an approve or a deny its reason.
func SaidOf(kind Kind, reason string, parts []*a2a.Part) string {
	if kind == KindApprove || kind == KindDeny {
		return cut(strings.TrimSpace(reason))
	}
	var text []string
	data := false
	for _, p := range parts {
		if p == nil {
			continue
		}
		if t := p.Text(); t != "" {
			text = append(text, t)
		} else if p.Data() != nil {
			data = true
		}
	}
	said := cut(strings.TrimSpace(strings.Join(text, " ")))
	if data {
		said = strings.TrimSpace(said + " + data")
	}
	return said
}

// cut is the first line of s, cut to saidMax runes.
func cut(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	if r := []rune(s); len(r) > saidMax {
		s = string(r[:saidMax]) + "…"
	}
	return s
}

// Words says "decided by alice at 14:02:11: approved" (local time; the
// date too when it was not today), with where the decision stands when
// the agent has not simply taken it.
func (w Winner) Words() string {
	what := map[Kind]string{KindApprove: "approved", KindDeny: "denied", KindReply: "replied", KindFollowUp: "sent a follow-up"}[w.Kind]
	if what == "" {
		what = string(w.Kind)
	}
	if w.Said != "" {
		what += " " + strconv.Quote(w.Said)
	}
	switch w.Result {
	case ResultAccepted:
	case ResultPending, "":
		what += " (being sent)"
	default:
		what += " (" + explain(w.Result, w.Problem, w.State).what + ")"
	}
	by := w.Approver
	if by == "" {
		by = "another operator"
	}
	at := w.At.Local()
	layout := "15:04:05"
	if y, m, d := time.Now().Date(); at.Year() != y || at.Month() != m || at.Day() != d {
		layout = "2006-01-02 15:04:05"
	}
	return fmt.Sprintf("decided by %s at %s: %s", by, at.Format(layout), what)
}

// The problems of a decision sent through a team's hub.
const (
	// ProblemForbidden: the hub refused the operator's role (403).
	ProblemForbidden Problem = "forbidden"
	// ProblemHub: the hub could not be reached or refused the request
	// before anything was journaled; nothing was sent.
	ProblemHub Problem = "hub"
	// ProblemHubNoAnswer: the hub took the request and did not answer;
	// it may have sent the decision (outcome unknown). The hub
	// reconciles its open decisions when it starts.
	ProblemHubNoAnswer Problem = "hub-no-answer"
	// ProblemMismatch: the hub builds another message from the same
	// input (its templates or the task changed); nothing was sent.
	ProblemMismatch Problem = "mismatch"
)

// teamWords explains the problems of team mode.
func teamWords(p Problem) (words, bool) {
	switch p {
	case ProblemForbidden:
		return words{"the hub refused: your operator may not do this on this agent; nothing was sent", "ask whoever runs the hub for the role"}, true
	case ProblemHub:
		return words{"the hub could not be reached; nothing was sent", "wait for the dashboard to reconnect to the hub, then decide again"}, true
	case ProblemHubNoAnswer:
		return words{"unknown: the hub stopped answering after it got the decision", "the hub reconciles it when it is back; the journal (4) shows the outcome"}, true
	case ProblemMismatch:
		return words{"the hub builds another message for this answer; nothing was sent", "open the prompt again and decide on what it shows now"}, true
	case ProblemRecord:
		return words{"not sent: the team's record is unreachable", "the hub reconnects by itself; decide again once the banner is gone"}, true
	}
	return words{}, false
}

// sendViaHub is Send for a Service attached to a hub: the hub decides,
// journals and sends; this process only keeps one send of a decision
// at a time.
func (s *Service) sendViaHub(ctx context.Context, d *Decision) Outcome {
	if d == nil || d.Message == nil || d.MessageID == "" || d.Message.ID != d.MessageID {
		return s.refuse(Outcome{}, ProblemRejected, errors.New("send: the decision is incomplete; build it with Prepare"))
	}
	out := Outcome{MessageID: d.MessageID, Agent: d.Agent, TaskID: d.TaskID, Kind: d.Kind}
	s.mu.Lock()
	busy := s.inFlight[d.MessageID]
	s.inFlight[d.MessageID] = true
	s.mu.Unlock()
	if busy {
		return s.refuse(out, ProblemInFlight, fmt.Errorf("send: decision %s is being sent already", d.MessageID))
	}
	defer func() {
		s.mu.Lock()
		delete(s.inFlight, d.MessageID)
		s.mu.Unlock()
	}()
	return s.o.Hub.Send(ctx, Request{Decision: *d, Input: d.in})
}

// errHubJournal refuses a local write to a journal that is the hub's.
var errHubJournal = errors.New("journal: this dashboard follows the hub's journal; it is written on the hub (a2atop journal check runs there)")

// Follow folds lines of the hub's journal as the feed delivers them, in
// order; lines already folded (a snapshot after a reconnect repeats
// them) are skipped. Only for a Service opened with Options.Hub.
func (s *Service) Follow(lines []JournalLine) error {
	m, ok := s.st.(*mirrorStore)
	if !ok {
		return errors.New("approvals: Follow is for a Service attached to a hub (Options.Hub)")
	}
	m.add(lines)
	return m.follow(s.foldFrom)
}

// Followed is the last line of the hub's journal folded (0 for none) and
// the hash of its bytes, so that a feed that starts again sends only the
// lines after it when the hub's line of that number is the same.
func (s *Service) Followed() (int, string) {
	m, ok := s.st.(*mirrorStore)
	if !ok {
		return 0, ""
	}
	return m.position()
}

// LineHash names a journal line's bytes ("sha256:…"), as Followed does.
func LineHash(raw []byte) string { return lineHash(raw) }

// openStore opens the journal the options name: the hub's when attached
// to one, else the file.
func openStore(o Options) (store, error) {
	if o.Hub != nil {
		return newMirrorStore(), nil
	}
	if o.Shared != nil {
		return newSharedStore(o.Shared), nil
	}
	fs, err := openFileStore(o.JournalPath, o.ReadOnly, o.Now)
	if fs != nil {
		fs.ckpt = o.Checkpoints
	}
	return fs, err
}

// publish hands lines to Options.OnJournal.
func (s *Service) publish(lines []line) {
	if s.o.OnJournal == nil || len(lines) == 0 {
		return
	}
	out := make([]JournalLine, 0, len(lines))
	for _, l := range lines {
		if l.walkOnly == walkAll {
			out = append(out, JournalLine{N: l.n, Raw: l.raw, Torn: l.torn})
		}
	}
	if len(out) > 0 {
		s.o.OnJournal(out)
	}
}

package inbox

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"a2atop/approvals"
	"a2atop/internal/sanitize"
	"a2atop/model"
	"a2atop/ui/common"
)

// Journal is the decision journal view: newest first, each human
// decision with its outcome, and the agent's state changes as separate
// facts (a state change is not a grant). A common.Component.
type Journal struct {
	ctx  common.Context
	svc  *approvals.Service
	keys KeyMap
	w, h int

	all     []approvals.Entry // the journal in memory, newest first
	older   int               // entries let go from memory: in the file only
	entries []approvals.Entry // what is shown of it: all, or what the filter keeps
	filter  common.Filter
	ver     uint64
	cursor  int
	sel     string // entryID of the selected entry: kept when entries come in above it
	top     int
	conf    *confirm // "send again?" for an unknown or not-delivered decision
	note    string   // Options.JournalNote
	order   common.Sort
	chain   approvals.ChainStatus // the journal's hash chain (journal_chain.go)
}

// The columns the journal sorts by: < and >, or the inbox's column
// keys (U time, A agent, I task, T kind, S outcome; again reverses).
const (
	jcolTime = iota
	jcolAgent
	jcolTask
	jcolKind
	jcolOutcome
)

func journalColumns(k KeyMap) []common.SortColumn {
	return []common.SortColumn{{Name: "TIME", Key: keyAs(k.SortBy.Updated, "sort by time"), Desc: true},
		{Name: "AGENT", Key: keyAs(k.SortBy.Agent, "sort by agent")}, {Name: "TASK", Key: keyAs(k.SortBy.ID, "sort by task")},
		{Name: "KIND", Key: keyAs(k.SortBy.Text, "sort by kind")}, {Name: "OUTCOME", Key: keyAs(k.SortBy.State, "sort by outcome")}}
}

// sortEntries orders what the journal shows; newest first is the
// journal's own order, which breaks ties.
func (j *Journal) sortEntries(es []approvals.Entry) []approvals.Entry {
	col, desc := j.order.Col(), j.order.Desc()
	if col == jcolTime && desc {
		return es
	}
	out := slices.Clone(es)
	key := func(e approvals.Entry) string {
		switch col {
		case jcolAgent:
			return e.Agent
		case jcolTask:
			return string(e.TaskID)
		case jcolKind:
			return string(e.Kind)
		case jcolOutcome:
			return string(e.Result)
		}
		return ""
	}
	if col == jcolTime { // oldest first
		slices.Reverse(out)
		return out
	}
	slices.SortStableFunc(out, func(a, b approvals.Entry) int {
		c := strings.Compare(key(a), key(b))
		if desc {
			return -c
		}
		return c
	})
	return out
}

// journalPage is how many entries pgup and pgdn move.
const journalPage = 10

// JournalFactory returns what ui.Options.Journal expects: a function
// that builds the journal over svc with the root's Context.
func JournalFactory(svc *approvals.Service, o Options) func(common.Context) common.Component {
	return func(ctx common.Context) common.Component { return NewJournal(ctx, svc, o) }
}

// NewJournal builds the journal component.
func NewJournal(ctx common.Context, svc *approvals.Service, o Options) *Journal {
	ctx.ReadOnly = ctx.ReadOnly || svc.ReadOnly()
	j := &Journal{ctx: ctx, svc: svc, keys: o.keyMap(ctx.ReadOnly), w: 80, h: 20, note: o.JournalNote}
	j.filter = common.NewFilter(ctx.Theme, j.keys.Filter, "the journal")
	j.order = common.NewSort(journalColumns(j.keys), jcolTime)
	j.reload()
	return j
}

// Capturing is true while the filter is typed or the "send again?"
// confirmation is open.
func (j *Journal) Capturing() bool { return j.conf != nil || j.filter.Editing() }

// OpensText reports whether msg opens the filter, so that a paste
// starting with it is typed into it.
func (j *Journal) OpensText(msg tea.KeyMsg) bool { return j.conf == nil && j.filter.Opens(msg) }

// Footnote is the filter's line in the footer.
func (j *Journal) Footnote(w int) (string, bool) {
	if j.conf != nil {
		return "", false
	}
	return j.filter.Footnote(w)
}

// HelpNote is the filter's syntax.
func (j *Journal) HelpNote() string { return common.FilterNote }

// Title is the header's view name.
func (j *Journal) Title() string { return "journal" }

// SetSize gives the view its cells.
func (j *Journal) SetSize(w, h int) {
	j.w, j.h = max(w, 20), max(h, 5)
	j.filter.SetWidth(w)
}

// reload reads the journal again when it changed, keeping the selection
// on the entry it was on (new entries come in above it, newest first).
func (j *Journal) reload() {
	if v := j.svc.Version(); v != j.ver || j.all == nil {
		j.all, j.ver, j.older = j.svc.Journal(), v, j.svc.Forgotten()
		j.chain = j.svc.Chain()
		j.show()
	}
}

// show keeps the entries the filter matches, and the selection on the
// entry it was on.
func (j *Journal) show() {
	j.entries = j.sortEntries(j.all)
	if j.filter.Active() {
		q := j.filter.Query()
		sorted := j.entries
		j.entries = make([]approvals.Entry, 0, len(j.all))
		for _, e := range sorted {
			if q.MatchRow(entryRow(e)) {
				j.entries = append(j.entries, e)
			}
		}
	}
	for i := range j.entries {
		if j.sel != "" && entryID(j.entries[i]) == j.sel {
			j.cursor = i
			break
		}
	}
	j.cursor = max(min(j.cursor, len(j.entries)-1), 0)
	j.keep()
}

// entryRow is what an entry's lines show, for the filter.
func entryRow(e approvals.Entry) model.Row {
	r := model.Row{Agent: e.Agent, ID: e.TaskID, Text: []string{string(e.TaskID), e.MessageID, string(e.Kind), string(e.Result),
		e.Approver, e.Reason, partsLine(e.Parts), e.Words(), e.Error, e.ContextID, e.RecordedAs}}
	if e.PromptState != "" {
		r.States = append(r.States, e.PromptState)
	}
	for _, c := range e.States {
		r.States = append(r.States, c.From, c.To)
		r.Text = append(r.Text, c.Note)
	}
	return r
}

// keep remembers the selected entry.
func (j *Journal) keep() {
	j.sel = ""
	if e := j.selected(); e != nil {
		j.sel = entryID(*e)
	}
}

// entryID names an entry for as long as the journal holds it: its
// decision's messageId, or for an observation its task and first state
// change.
func entryID(e approvals.Entry) string {
	if !e.Observed() {
		return e.MessageID
	}
	id := "observed " + e.Agent + " " + string(e.TaskID)
	if len(e.States) > 0 {
		id += " " + e.States[0].At.UTC().Format(time.RFC3339Nano)
	}
	return id
}

// Update handles the clock, results and keys. The journal says what its
// own sends and reconciles achieved; it reloads after anyone's.
func (j *Journal) Update(msg tea.Msg) (common.Component, tea.Cmd) {
	j.reload()
	switch msg := msg.(type) {
	case common.JournalRefreshedMsg:
		j.noteElsewhere(msg.Decisions)
	case ReconciledMsg:
		if msg.from == fromJournal {
			j.ctx.Out.Send(reconciledNotice(msg.Outcomes))
		}
		j.reload()
	case SentMsg:
		if msg.from == fromJournal {
			j.ctx.Out.Send(outcomeNotice(msg))
		}
		j.reload()
	case tea.KeyMsg:
		cmd := j.key(msg)
		j.keep()
		return j, cmd
	case tea.MouseMsg:
		j.mouse(msg)
		j.keep()
	}
	return j, nil
}

// mouse moves through the entries with the wheel and selects the one
// clicked; the "send again?" dialog ignores the mouse.
func (j *Journal) mouse(msg tea.MouseMsg) {
	if j.conf != nil || msg.Action != tea.MouseActionPress {
		return
	}
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		j.cursor = max(j.cursor-1, 0)
	case tea.MouseButtonWheelDown:
		j.cursor = max(min(j.cursor+1, len(j.entries)-1), 0)
	case tea.MouseButtonLeft:
		if i := j.entryAt(msg.Y); i >= 0 {
			j.cursor = i
		}
	}
}

// entryAt is the entry drawn at line y of the view, or -1. It follows
// View: the title (and the note), then whole entries from top, the
// selected one taller.
func (j *Journal) entryAt(y int) int {
	line := 1
	if j.note != "" {
		line++
	}
	if y < line {
		return -1
	}
	for i := j.top; i < len(j.entries) && line < j.h; i++ {
		line += len(j.entry(j.entries[i], i == j.cursor))
		if y < line {
			return i
		}
	}
	return -1
}

func (j *Journal) key(msg tea.KeyMsg) tea.Cmd {
	k := j.keys
	if c := j.conf; c == nil {
		if handled, changed, cmd := j.filter.Key(msg); handled {
			if changed {
				j.show()
			}
			return cmd
		}
		if j.order.Key(msg, k.Order) {
			j.show()
			return nil
		}
		agent := ""
		if e := j.selected(); e != nil {
			agent = e.Agent
		}
		if readOnlyKey(j.ctx.ReadOnly, msg, []key.Binding{k.Reconcile, k.Retry, k.FollowUp}, agent, j.ctx.Warn, j.ctx.ReadOnlyWords) {
			return nil
		}
	}
	if c := j.conf; c != nil {
		answer, wake := c.answer.Key(msg, j.ctx.Now())
		switch answer {
		case common.No:
			j.conf = nil
		case common.Yes:
			if c.elsewhere != "" {
				j.ctx.Warn("not sent: " + c.elsewhere + " — " + j.keys.Decline.Help().Key + " goes back")
				return nil
			}
			j.conf = nil
			j.ctx.Say("sending again with the same messageId…")
			return sendCmd(j.svc, c.key, c.d, fromJournal)
		}
		return wake
	}
	switch {
	case key.Matches(msg, k.Up):
		j.cursor = max(j.cursor-1, 0)
	case key.Matches(msg, k.Down):
		j.cursor = max(min(j.cursor+1, len(j.entries)-1), 0)
	case key.Matches(msg, k.PageUp):
		j.cursor = max(j.cursor-journalPage, 0)
	case key.Matches(msg, k.PageDown):
		j.cursor = max(min(j.cursor+journalPage, len(j.entries)-1), 0)
	case key.Matches(msg, k.Top):
		j.cursor = 0
	case key.Matches(msg, k.Bottom):
		j.cursor = max(len(j.entries)-1, 0)
	case key.Matches(msg, k.Reconcile):
		j.ctx.Say("reconciling open decisions (GetTask)…")
		return reconcileCmd(j.svc, fromJournal)
	case key.Matches(msg, k.Retry):
		return j.retry()
	case key.Matches(msg, k.FollowUp):
		return j.followUp()
	case key.Matches(msg, k.Open):
		if e := j.selected(); e != nil {
			j.ctx.Out.Send(common.OpenTaskMsg{Key: model.TaskKey{Agent: e.Agent, ID: e.TaskID}})
		}
	case key.Matches(msg, k.Copy):
		if e := j.selected(); e != nil {
			j.ctx.Out.Send(common.CopyMsg{Text: string(e.TaskID)})
		}
	case key.Matches(msg, k.Back, k.Quit):
		j.ctx.Out.Send(common.BackMsg{})
	}
	return nil
}

// noteElsewhere marks the "send again?" confirmation when another
// process decided its prompt since it opened: y then sends nothing.
func (j *Journal) noteElsewhere(ds []approvals.Entry) {
	c := j.conf
	if c == nil || c.d.Kind == approvals.KindFollowUp {
		return
	}
	for _, e := range ds {
		if e.MessageID != c.d.MessageID && answers(e, c.key, c.d.Prompt) {
			c.elsewhere = e.ElsewhereWords()
		}
	}
}

func (j *Journal) selected() *approvals.Entry {
	if j.cursor < 0 || j.cursor >= len(j.entries) {
		return nil
	}
	return &j.entries[j.cursor]
}

// retry asks to send an unknown or not-delivered decision again, with
// the same messageId; the confirmation names the earlier attempt.
func (j *Journal) retry() tea.Cmd {
	return j.confirmFrom(j.svc.Retry, true)
}

// followUp offers a decision refused because its task had ended as a
// new task in the same context, naming the ended one.
func (j *Journal) followUp() tea.Cmd {
	return j.confirmFrom(j.svc.PrepareFollowUp, false)
}

// confirmFrom prepares a decision from the selected entry with prepare
// and opens its confirmation, armed after the quiet period; withPrior
// shows the entry in the dialog as the attempt it repeats.
func (j *Journal) confirmFrom(prepare func(messageID string) (*approvals.Decision, error), withPrior bool) tea.Cmd {
	e := j.selected()
	if e == nil || e.Observed() {
		return nil
	}
	if w := j.ctx.Refusal(e.Agent, common.RoleFor(e.PromptState)); w != "" {
		j.ctx.Warn(w)
		return nil
	}
	if w := common.BlockedWords(j.svc, e.Agent, j.w); w != "" {
		j.ctx.Warn(w)
		return nil
	}
	d, err := prepare(e.MessageID)
	if err != nil {
		j.ctx.Warn(err.Error())
		return nil
	}
	var prior *approvals.Entry
	if withPrior {
		prior = e
	}
	k := model.TaskKey{Agent: e.Agent, ID: e.TaskID}
	var wake tea.Cmd
	j.conf, wake = newConfirm(j.svc, j.keys, d, k, prior, j.ctx.Now())
	j.conf.warnReach(j.ctx.Fleet)
	if t := j.ctx.Fleet.Task(k); t != nil && t.Class == model.ClassInterrupted && t.Snapshot != nil {
		j.conf.ask = t.Snapshot.Status.Message // the question it still asks
	}
	return wake
}

// View draws the entries that fit, the selected one in full.
func (j *Journal) View() string {
	th := j.ctx.Theme
	order := "newest first"
	if j.order.Col() != jcolTime || !j.order.Desc() {
		order = j.order.Label()
	}
	title := " · " + entries(len(j.all)) + " · " + order
	if j.filter.Active() {
		title = fmt.Sprintf(" · %s · %d shown · %s", entries(len(j.all)), len(j.entries), order)
	}
	if j.older > 0 { // journal_memory: the rest is in the file
		title += fmt.Sprintf(" · %d older in the file: a2atop journal export", j.older)
	}
	if j.w >= 100 {
		title += " · a decision is not the grant: the agent's state is its own fact"
	}
	lines := []string{th.Title.Render("Journal") + th.Muted.Render(title)}
	if j.note != "" {
		lines = append(lines, th.Warn.Render(sanitize.Line(j.note, j.w)))
	}
	if c := j.chainLine(); c != "" {
		lines = append(lines, c)
	}
	if j.conf != nil {
		lines = append(lines, strings.Split(j.conf.view(th, j.w, j.h-len(lines), j.ctx.Now()), "\n")...)
		return fit(lines, j.w, j.h)
	}
	if len(j.entries) == 0 {
		empty := "No decisions yet. Replies, approvals and denials you send are recorded here first."
		if len(j.all) > 0 {
			empty = "No entry matches the filter (" + j.keys.Filter.Clear.Help().Key + " clears it)."
		}
		lines = append(lines, "", th.Muted.Render(empty))
		return fit(lines, j.w, j.h)
	}
	j.scrollTo(j.h - len(lines))
	var body []string
	for i := j.top; i < len(j.entries) && len(lines)+len(body) < j.h; i++ {
		body = append(body, j.entry(j.entries[i], i == j.cursor)...)
	}
	return fit(append(lines, body...), j.w, j.h)
}

// scrollTo moves the first entry drawn so that the selected one is whole
// in avail lines: up to it, or down until the entries from top to it fit.
// It measures only the entries between, not the journal.
func (j *Journal) scrollTo(avail int) {
	j.top = min(j.top, j.cursor)
	used := 0
	for i := j.cursor; i >= j.top; i-- {
		used += len(j.entry(j.entries[i], i == j.cursor))
		if used > avail {
			j.top = min(i+1, j.cursor)
			return
		}
	}
}

// entry draws one journal entry: the decision line, what was sent, and
// the agent's state changes; the selected one also says what to do next.
func (j *Journal) entry(e approvals.Entry, sel bool) []string {
	th := j.ctx.Theme
	mark := "  "
	if sel {
		mark = "▸ "
	}
	if e.Observed() {
		s := e.States[0]
		head := fmt.Sprintf("%s%s  observed  %s%s  %s → %s", mark, stamp(s.At), keyName(model.TaskKey{Agent: e.Agent, ID: e.TaskID}),
			recordedAs(e), model.ShortState(s.From), model.ShortState(s.To))
		out := []string{th.Muted.Render(sanitize.Line(head, j.w))}
		if s.Note != "" {
			out = append(out, th.Muted.Render(sanitize.Line("    "+s.Note, j.w)))
		}
		return out
	}
	head := j.decisionHead(mark, e)
	if e.Attempts > 1 {
		head += fmt.Sprintf("  (sent %d times, same messageId)", e.Attempts)
		if e.RetriedBy != "" && e.RetriedBy != e.Approver {
			head = head[:len(head)-1] + "; again by " + e.RetriedBy + ")"
		}
	}
	res := th.OK
	switch e.Result {
	case approvals.ResultRefused, approvals.ResultSuperseded:
		res = th.Error
	case approvals.ResultPending, approvals.ResultUnknown, approvals.ResultNotDelivered:
		res = th.Warn
	}
	first := sanitize.Line(head, max(j.w-16, 10))
	if sel {
		first = th.RowSelected.Render(first)
	}
	out := []string{first + "  " + res.Render(string(e.Result))}
	if sel { // the selected entry shows the whole payload
		for i, l := range strings.Split(wrapText(line(partsLine(e.Parts)), max(j.w-14, 1)), "\n") {
			lbl := "          "
			if i == 0 {
				lbl = "decision: "
			}
			out = append(out, "    "+th.Label.Render(lbl)+l)
		}
	} else {
		out = append(out, "    "+th.Label.Render("decision: ")+sanitize.Line(partsLine(e.Parts), max(j.w-14, 1)))
	}
	if e.Reason != "" {
		out = append(out, "    "+th.Label.Render("reason:   ")+sanitize.Line(e.Reason, max(j.w-14, 1)))
	}
	if len(e.Votes) > 0 {
		out = append(out, "    "+th.Label.Render("votes:    ")+sanitize.Line(votesLine(e.Votes), max(j.w-14, 1)))
	}
	out = append(out, "    "+th.Label.Render("outcome:  ")+sanitize.Line(e.Words(), max(j.w-14, 1)))
	out = append(out, "    "+th.Label.Render("agent:    ")+sanitize.Line(statesLine(e), max(j.w-14, 1)))
	if sel {
		if id := identityLine(e); id != "" {
			out = append(out, "    "+th.Label.Render("identity: ")+th.Muted.Render(sanitize.Line(id, max(j.w-14, 1))))
		}
		if e.Error != "" {
			out = append(out, "    "+th.Label.Render("error:    ")+th.Error.Render(sanitize.Line(e.Error, max(j.w-14, 1))))
		}
		next, can := e.Next(), j.canDecide(e.Agent, e.PromptState)
		if e.Result.Retryable() && can {
			next += " (s: send again)"
		}
		if e.Problem == approvals.ProblemTaskEnded && e.Result == approvals.ResultRefused && can {
			next += " (f: follow-up task)"
		}
		out = append(out, "    "+th.Label.Render("next:     ")+th.Muted.Render(sanitize.Line(next, max(j.w-14, 1))))
		out = append(out, th.Muted.Render(sanitize.Line(fmt.Sprintf("    messageId %s · context %s · prompt %s", e.MessageID, e.ContextID, e.Prompt), j.w)))
	}
	return out
}

// recordedAs is " (recorded as 127.0.0.1:38667)" for an entry recorded
// under another name than the one its agent has now (Entry.Agent): an
// agent given as a URL, then configured under a name.
func recordedAs(e approvals.Entry) string {
	if e.RecordedAs == "" {
		return ""
	}
	return " (recorded as " + e.RecordedAs + ")"
}

// identityLine is, for an entry recorded under another name or matched
// by its URL, the identity its decisions are kept by and how it was
// matched; "" when there is nothing to say.
func identityLine(e approvals.Entry) string {
	if e.RecordedAs == "" && e.AgentNote == "" {
		return ""
	}
	id := e.AgentURL
	if e.Tenant != "" {
		id += " (tenant " + e.Tenant + ")"
	}
	switch {
	case id == "":
		return e.AgentNote
	case e.AgentNote != "":
		return id + " — " + e.AgentNote
	}
	return id + ", now " + e.Agent
}

// entries is "1 entry", "3 entries".
func entries(n int) string {
	if n == 1 {
		return "1 entry"
	}
	return fmt.Sprintf("%d entries", n)
}

func stamp(t time.Time) string { return t.UTC().Format("01-02 15:04:05Z") }

// partsLine is what was sent, on one line: text parts quoted, data as
// compact JSON.
func partsLine(parts []*a2a.Part) string {
	var out []string
	for _, p := range parts {
		switch c := p.Content.(type) {
		case a2a.Text:
			out = append(out, fmt.Sprintf("%q", string(c)))
		case a2a.Data:
			b, _ := json.Marshal(c.Value)
			out = append(out, "data "+string(b))
		case a2a.URL:
			out = append(out, "file "+string(c))
		}
	}
	return strings.Join(out, " + ")
}

// statesLine lists the agent's state changes after the decision.
func statesLine(e approvals.Entry) string {
	if len(e.States) == 0 {
		return "no state change recorded (the decision is not the grant: the agent decides)"
	}
	s := model.ShortState(e.States[0].From)
	for _, c := range e.States {
		s += fmt.Sprintf(" → %s (%s %s)", model.ShortState(c.To), c.Source, c.At.UTC().Format("15:04:05Z"))
	}
	return s
}

// ShortHelp is the footer's keys.
func (j *Journal) ShortHelp() []key.Binding {
	if j.conf != nil {
		return []key.Binding{j.keys.Confirm, j.keys.Decline}
	}
	e := j.selected()
	keys := []key.Binding{j.keys.Up, j.keys.Down, common.Offer(j.keys.Open, e != nil), j.keys.Filter.Open,
		common.Offer(j.keys.Copy, e != nil), j.keys.Reconcile}
	if e != nil && !e.Observed() && j.canDecide(e.Agent, e.PromptState) {
		if e.Result.Retryable() {
			keys = append(keys, j.keys.Retry)
		}
		if e.Problem == approvals.ProblemTaskEnded && e.Result == approvals.ResultRefused {
			keys = append(keys, j.keys.FollowUp)
		}
	}
	return keys
}

// canDecide reports whether a decision on agent, on a prompt in state,
// may be sent from here: the agent is writable (and, on a hub, the
// operator's roles allow it) and no damaged journal line refuses it.
func (j *Journal) canDecide(agent string, state a2a.TaskState) bool {
	return j.ctx.May(agent, common.RoleFor(state)) && j.svc.Blocked(agent) == nil
}

// FullHelp is every journal key.
func (j *Journal) FullHelp() [][]key.Binding {
	k := j.keys
	return [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Open, k.Copy, k.Filter.Open, filterClear(k.Filter)},
		{k.Reconcile, k.Retry, k.FollowUp, k.Confirm, k.Decline, k.Back}, append([]key.Binding{k.Order.Prev, k.Order.Next}, j.order.Keys()...)}
}

package inbox

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"a2atop/approvals"
	"a2atop/model"
	"a2atop/ui/common"
)

// Another process (another dashboard, `a2atop reply`) may answer a prompt
// the inbox shows at any moment. The root hands the inbox what others
// decided, about once a second (common.JournalRefreshedMsg): a dialog
// open on that prompt (the reply editor, the deny reason, the
// confirmation) says who answered at once, keeps what was typed and sends
// nothing; a dialog or draft dropped because its task left the inbox says
// who answered instead of a bare "left the inbox", as soon as the journal
// shows it.

// leftNote is the notice of a task that left the inbox, waiting for the
// next read of the journal to say whether its prompt was answered
// elsewhere.
type leftNote struct {
	key    model.TaskKey
	prompt string
	rest   string
	warn   bool
}

// maxLeftNotes bounds the notices that wait for the next read of the
// journal: one footer shows one notice, so a few are plenty.
const maxLeftNotes = 8

// journalRefreshed takes what other processes decided.
func (m *Inbox) journalRefreshed(msg common.JournalRefreshedMsg) tea.Cmd {
	m.noteElsewhere(msg.Decisions)
	pending := m.leftNotes
	m.leftNotes = nil
	for _, n := range pending {
		if w := m.elsewhereWords(n.key, n.prompt); w != "" {
			m.say(m.leftElsewhere(n.key, w, n.rest), n.warn)
		}
	}
	return m.journalChanged()
}

// noteElsewhere marks the open dialog when one of ds answers its prompt.
func (m *Inbox) noteElsewhere(ds []approvals.Entry) {
	if m.mode == modeList || m.target == (model.TaskKey{}) {
		return
	}
	for _, e := range ds {
		if answers(e, m.target, m.tprompt) {
			m.elsewhere = e.ElsewhereWords()
			if m.conf != nil {
				m.conf.elsewhere = m.elsewhere
			}
		}
	}
}

// answers reports whether e is a decision on the prompt of task k.
func answers(e approvals.Entry, k model.TaskKey, prompt string) bool {
	return e.Kind != approvals.KindFollowUp && e.Agent == k.Agent && e.TaskID == k.ID && e.Prompt == prompt
}

// elsewhereWords says who answered the prompt of task k elsewhere, as the
// journal holds it now; "" when nobody else did.
func (m *Inbox) elsewhereWords(k model.TaskKey, prompt string) string {
	if prompt == "" {
		return ""
	}
	if e, ok := m.svc.Prior(k.Agent, k.ID, prompt); ok {
		return e.ElsewhereWords()
	}
	return ""
}

// sayLeft says that task k left the inbox. When the journal shows its
// prompt was answered elsewhere the notice says who answered, then rest
// ("draft dropped, nothing was sent"); else it is bare, and if the next
// read of the journal shows who answered, a notice that says so replaces
// it.
func (m *Inbox) sayLeft(k model.TaskKey, prompt, bare, rest string, warn bool) {
	if w := m.elsewhereWords(k, prompt); w != "" {
		m.say(m.leftElsewhere(k, w, rest), warn)
		return
	}
	m.say(bare, warn)
	if prompt != "" {
		m.leftNotes = append(m.leftNotes, leftNote{key: k, prompt: prompt, rest: rest, warn: warn})
		if n := len(m.leftNotes); n > maxLeftNotes { // nothing reads the journal (no root follows it)
			m.leftNotes = append(m.leftNotes[:0], m.leftNotes[n-maxLeftNotes:]...)
		}
	}
}

// leftElsewhere is "deployer · 4b9393bc: answered elsewhere by ops@host
// at 14:02:11: approved; now working — rest", who answered first.
func (m *Inbox) leftElsewhere(k model.TaskKey, elsewhere, rest string) string {
	s := keyName(k) + ": " + elsewhere + "; now " + m.stateOf(k)
	if rest != "" {
		s += " — " + rest
	}
	return s
}

func (m *Inbox) say(text string, warn bool) {
	if warn {
		m.ctx.Warn(text)
	} else {
		m.ctx.Say(text)
	}
}

// refusedElsewhere says, when the open dialog's prompt was answered
// elsewhere, that nothing is sent from it and how to go on, and reports
// whether it was.
func (m *Inbox) refusedElsewhere(back string) bool {
	if m.elsewhere == "" {
		return false
	}
	m.ctx.Warn("not sent: " + m.elsewhere + " — " + back + "; to send a second decision, answer the task again")
	return true
}

// elsewhereLines say, in the editor or the deny reason whose prompt was
// answered elsewhere, who answered and that nothing is sent from it.
func (m *Inbox) elsewhereLines() []string {
	if m.elsewhere == "" || (m.mode != modeEditor && m.mode != modeReason) {
		return nil
	}
	kept := "what you typed is kept (" + m.keys.Keep.Help().Key + " keeps the draft)"
	if m.mode == modeReason {
		kept = m.keys.Back.Help().Key + " goes back"
	}
	text := m.elsewhere + " — nothing is sent from here; " + kept
	return strings.Split(m.ctx.Theme.Error.Render(wrapText(line(text), m.w)), "\n")
}

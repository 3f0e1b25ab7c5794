package agents

import (
	"context"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"a2atop/internal/sanitize"
	"a2atop/ui/common"
)

// SignInBackend is the device sign-in the agents view offers on L, for
// an agent whose credential is a person's sign-in (AgentInfo.SignIn). A
// Backend that implements it too gets the dialog; main adapts
// a2aclient.Manager's StartLogin and AwaitLogin to it. Both are called
// from a tea.Cmd.
type SignInBackend interface {
	// StartSignIn asks the agent's provider for a code to show.
	StartSignIn(ctx context.Context, agent string) (*DeviceCode, error)
	// AwaitSignIn polls until the person approved dc (or refused it, or
	// it expired, or ctx ended) and keeps the sign-in.
	AwaitSignIn(ctx context.Context, agent string, dc *DeviceCode) error
	// Describe says what an error of the two means, in words.
	Describe(err error) string
}

// DeviceCode is what the person needs: the page and the code to enter
// there. Handle is the backend's own, passed back to AwaitSignIn.
type DeviceCode struct {
	VerificationURI, VerificationURIComplete, UserCode string
	Expiry                                             time.Time
	Handle                                             any
}

// The messages of the sign-in, carrying the agent they belong to.
type (
	signInStartedMsg struct {
		Agent string
		Code  *DeviceCode
		Err   error
	}
	signInDoneMsg struct {
		Agent string
		Err   error
	}
)

// SignInKeyMap is the keys of the sign-in dialog.
type SignInKeyMap struct {
	CopyCode, CopyURL, Close key.Binding
}

// DefaultSignInKeyMap returns the dialog's keys.
func DefaultSignInKeyMap() SignInKeyMap {
	return SignInKeyMap{
		CopyCode: common.Bind("c", "copy code", "c"),
		CopyURL:  common.Bind("u", "copy page", "u"),
		Close:    common.Bind("esc", "close", "esc", "enter", "q"),
	}
}

// The dialog's states.
const (
	signInAsking  = iota // waiting for the provider's code
	signInWaiting        // showing the code, polling for the approval
	signInDone           // signed in
	signInFailed         // refused, expired or unreachable: Words says which
)

// signInDialog is the device sign-in of one agent: it asks for a code,
// shows the page and the code (both copyable with OSC 52), polls in a
// tea.Cmd, and says how it ended. Closing it stops the polling.
type signInDialog struct {
	agent  string
	keys   SignInKeyMap
	b      SignInBackend
	clip   *common.Clipboard
	state  int
	code   *DeviceCode
	words  string
	cancel context.CancelFunc
	ctx    context.Context
}

// openSignIn starts the dialog for agent and returns the Cmd that asks
// for the code.
func openSignIn(b SignInBackend, clip *common.Clipboard, agent string, keys SignInKeyMap) (*signInDialog, tea.Cmd) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	d := &signInDialog{agent: agent, keys: keys, b: b, clip: clip, ctx: ctx, cancel: cancel}
	return d, func() tea.Msg {
		dc, err := b.StartSignIn(ctx, agent)
		return signInStartedMsg{Agent: agent, Code: dc, Err: err}
	}
}

// update handles the dialog's own messages and keys; closed is true when
// the dialog is done with.
func (d *signInDialog) update(msg tea.Msg) (cmd tea.Cmd, closed bool) {
	switch msg := msg.(type) {
	case signInStartedMsg:
		if msg.Agent != d.agent || d.state != signInAsking {
			return nil, false
		}
		if msg.Err != nil {
			d.state, d.words = signInFailed, d.b.Describe(msg.Err)
			return nil, false
		}
		d.state, d.code = signInWaiting, msg.Code
		b, ctx, agent, dc := d.b, d.ctx, d.agent, msg.Code
		return func() tea.Msg { return signInDoneMsg{Agent: agent, Err: b.AwaitSignIn(ctx, agent, dc)} }, false
	case signInDoneMsg:
		if msg.Agent != d.agent || d.state != signInWaiting {
			return nil, false
		}
		if msg.Err != nil {
			d.state, d.words = signInFailed, d.b.Describe(msg.Err)
			return nil, false
		}
		d.state = signInDone
		d.cancel()
	case tea.KeyMsg:
		return d.key(msg)
	}
	return nil, false
}

func (d *signInDialog) key(msg tea.KeyMsg) (tea.Cmd, bool) {
	switch {
	case key.Matches(msg, d.keys.Close):
		d.cancel()
		return nil, true
	case key.Matches(msg, d.keys.CopyCode) && d.code != nil:
		return d.clip.Copy(d.code.UserCode, "the code"), false
	case key.Matches(msg, d.keys.CopyURL) && d.code != nil:
		return d.clip.Copy(d.page(), "the page"), false
	}
	return nil, false
}

// page is the URL to open: the one that carries the code when the
// provider gives it.
func (d *signInDialog) page() string {
	if d.code.VerificationURIComplete != "" {
		return d.code.VerificationURIComplete
	}
	return d.code.VerificationURI
}

// view draws the dialog centred in w×h.
func (d *signInDialog) view(ctx *common.Context, w, h int) string {
	th := ctx.Theme
	inner := min(max(w-8, 20), 76)
	var b strings.Builder
	b.WriteString(th.DialogTitle.Render("Sign in to "+sanitize.Line(d.agent, inner-12)) + "\n\n")
	switch d.state {
	case signInAsking:
		b.WriteString("Asking the agent's provider for a code…\n")
	case signInWaiting:
		b.WriteString("Open this page in a browser, on any device:\n\n")
		b.WriteString("  " + th.Title.Render(sanitize.Line(d.page(), inner-2)) + "\n\n")
		b.WriteString("and enter the code\n\n")
		b.WriteString("  " + th.Title.Render(sanitize.Line(d.code.UserCode, 32)) + "\n\n")
		wait := "Waiting for the sign-in to be approved…"
		if !d.code.Expiry.IsZero() {
			wait += " (the code expires in " + ctx.Clock.Left(ctx.Now(), d.code.Expiry) + ")"
		}
		b.WriteString(th.Muted.Render(wait) + "\n")
	case signInDone:
		b.WriteString(th.OK.Render("Signed in ✓") + "\n\nThe refresh token is kept in a private file in the state\ndirectory; the agent is watched with it from now on.\n")
	case signInFailed:
		b.WriteString(th.Error.Render(wrapWords(sanitize.Line(d.words, 400), inner)) + "\n\nPress L again to start over.\n")
	}
	b.WriteString("\n" + th.Muted.Render(d.hint()))
	box := th.Dialog.Width(inner).Render(b.String())
	return lipgloss.Place(w, h, lipgloss.Center, lipgloss.Center, box)
}

func (d *signInDialog) hint() string {
	if d.state == signInWaiting {
		return "c copy the code · u copy the page · esc stop waiting"
	}
	return "esc close"
}

// wrapWords breaks s into lines of at most w cells at spaces.
func wrapWords(s string, w int) string {
	return lipgloss.NewStyle().Width(max(w, 10)).Render(s)
}

// signIn opens the sign-in dialog for the selected agent, or says why not.
func (v *Screen) signIn() tea.Cmd {
	a := v.selected()
	b, ok := v.ctx.Backend.(SignInBackend)
	switch {
	case a == nil:
		return nil
	case !ok:
		v.ctx.Warn("signing in needs the agents' connection (not in this mode)")
		return nil
	case !a.Info.SignIn:
		v.ctx.Warn("agent " + sanitize.Line(a.Name, 64) + " does not sign a person in (its credential is " + orDash(sanitize.Line(a.Info.Auth, 80)) + ")")
		return nil
	}
	var cmd tea.Cmd
	v.dialog, cmd = openSignIn(b, v.clip, a.Name, v.keys.SignInDialog)
	return cmd
}

// updateDialog hands the open dialog its messages and keys.
func (v *Screen) updateDialog(msg tea.Msg) tea.Cmd {
	cmd, closed := v.dialog.update(msg)
	if closed {
		v.dialog = nil
	}
	return cmd
}

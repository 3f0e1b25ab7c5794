package ui

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"

	"a2atop/model"
	"a2atop/ui/common"
	"a2atop/ui/inbox"
	"a2atop/ui/internal/uitest"
)

// signInBackend is the fixture's backend with a device sign-in: its
// provider hands out one code, and the test approves or refuses it.
type signInBackend struct {
	*fakeBackend
	mu       sync.Mutex
	starts   []string
	approved chan error
	ended    chan error // what AwaitSignIn returned, for the test
}

func newSignInBackend(b *fakeBackend) *signInBackend {
	return &signInBackend{fakeBackend: b, approved: make(chan error, 1), ended: make(chan error, 1)}
}

func (s *signInBackend) StartSignIn(_ context.Context, agent string) (*DeviceCode, error) {
	s.mu.Lock()
	s.starts = append(s.starts, agent)
	s.mu.Unlock()
	return &DeviceCode{VerificationURI: "https://login.example.com/device", UserCode: "WDJB-MJHT",
		VerificationURIComplete: "https://login.example.com/device?user_code=WDJB-MJHT", Expiry: testNow.Add(5 * time.Minute)}, nil
}

func (s *signInBackend) AwaitSignIn(ctx context.Context, _ string, _ *DeviceCode) error {
	var err error
	select {
	case err = <-s.approved:
	case <-ctx.Done():
		err = ctx.Err()
	}
	s.ended <- err
	return err
}

func (s *signInBackend) Describe(err error) string { return err.Error() }

// signInFleet is the fixture with its first agent signing a person in,
// a signed card and an extended card.
func signInFleet() *model.Fleet {
	f := fixtureFleet()
	a := f.Agents()[0]
	info := a.Info
	info.Auth, info.SignIn = `OAuth 2.0 device sign-in (card scheme "people")`, true
	info.Signature, info.SignatureOK = "signed ✓ (key key-1)", true
	info.Extended = "+2 skills: deploy, rollback"
	f.Apply([]model.Event{{Kind: model.EventAgent, Agent: a.Name, At: testNow, Info: &info}})
	return f
}

// The sign-in dialog and the agents view's trust fields, at every size.
func TestSignInGolden(t *testing.T) {
	for _, sc := range []struct {
		name string
		keys []string
		wait string
	}{
		{"agents_trust", []string{"3"}, "extended card"},
		{"signin_code", []string{"3", "L"}, "WDJB-MJHT"},
	} {
		for _, sz := range goldenSizes {
			t.Run(fmt.Sprintf("%s_%dx%d", sc.name, sz[0], sz[1]), func(t *testing.T) {
				f := signInFleet()
				b := newSignInBackend(newFakeBackend(f))
				m, _ := newTestModel(t, Options{Fleet: f, Backend: b})
				tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(sz[0], sz[1]))
				for _, k := range sc.keys {
					tm.Send(uitest.Key(k))
				}
				out := uitest.Frame(t, tm, sc.wait, sz[0], sz[1], true)
				golden.RequireEqual(t, []byte(out))
			})
		}
	}
}

// L on an agent that signs a person in: the dialog asks for a code,
// shows it, copies it with OSC 52 on c, says "Signed in" once approved;
// closing it while waiting stops the polling.
func TestSignInDialog(t *testing.T) {
	f := signInFleet()
	b := newSignInBackend(newFakeBackend(f))
	var term bytes.Buffer
	m, _ := newTestModel(t, Options{Fleet: f, Backend: b, Output: &term})
	sized(m, 100, 30)
	press(m, "3")
	// L asks for the code; what that answers starts the polling, which
	// blocks until the provider says: run it aside, as Bubble Tea would.
	openDialog := func() chan []tea.Msg {
		_, cmd := m.Update(uitest.Key("L"))
		polls := make(chan []tea.Msg, 1)
		for _, msg := range uitest.Run(cmd) {
			_, next := m.Update(msg)
			go func() { polls <- uitest.Run(next) }()
		}
		return polls
	}
	feed := func(polls chan []tea.Msg) {
		for _, msg := range <-polls {
			_, next := m.Update(msg)
			settle(m, next)
		}
	}
	polls := openDialog()
	if v := m.View(); !strings.Contains(v, "WDJB-MJHT") || !strings.Contains(v, "login.example.com/device?user_code=WDJB-MJHT") {
		t.Fatalf("the dialog does not show the page and the code:\n%s", v)
	}
	press(m, "c")
	if want := base64.StdEncoding.EncodeToString([]byte("WDJB-MJHT")); !strings.Contains(term.String(), want) {
		t.Errorf("c wrote %q, want the OSC 52 of the code", term.String())
	}
	press(m, "q") // closes: the dialog takes every key, q does not quit
	if err := <-b.ended; !errors.Is(err, context.Canceled) {
		t.Errorf("closing the dialog left the polling running (%v)", err)
	}
	feed(polls)
	if strings.Contains(m.View(), "WDJB-MJHT") || m.view != viewAgents {
		t.Fatalf("the dialog did not close back to the agents view:\n%s", m.View())
	}

	polls = openDialog()
	b.approved <- nil
	feed(polls)
	if !strings.Contains(m.View(), "Signed in ✓") {
		t.Fatalf("no success after the approval:\n%s", m.View())
	}
	<-b.ended
	press(m, "esc")

	polls = openDialog()
	b.approved <- errors.New("the sign-in was refused on the provider's page")
	feed(polls)
	if !strings.Contains(m.View(), "the sign-in was refused") {
		t.Fatalf("a refusal is not said:\n%s", m.View())
	}
}

// L on an agent that does not sign a person in says so.
func TestSignInRefusedForOtherAgents(t *testing.T) {
	f := signInFleet()
	b := newSignInBackend(newFakeBackend(f))
	m, _ := newTestModel(t, Options{Fleet: f, Backend: b})
	sized(m, 100, 30)
	press(m, "3", "j", "L")
	if agentsOf(m).SigningIn() || len(b.starts) != 0 {
		t.Fatal("the dialog opened for an agent that does not sign in")
	}
	if !strings.Contains(m.View(), "does not sign a person in") {
		t.Errorf("no words:\n%s", m.View())
	}
}

// TestSignInKeysRebind: [keys] moves the sign-in key (agents.sign_in)
// and the dialog's own keys (agents.sign_in_dialog_*): the new ones
// open, copy and close, the old ones no longer do.
func TestSignInKeysRebind(t *testing.T) {
	k, ik := DefaultKeyMap(), inbox.DefaultKeyMap()
	if err := common.Rebind(allActions(&k, &ik), map[string][]string{
		"agents.sign_in": {"ctrl+s"}, "agents.sign_in_dialog_copy_code": {"C"}, "agents.sign_in_dialog_close": {"x"},
	}); err != nil {
		t.Fatal(err)
	}
	f := signInFleet()
	b := newSignInBackend(newFakeBackend(f))
	var term bytes.Buffer
	m, _ := newTestModel(t, Options{Fleet: f, Backend: b, Output: &term, KeyMap: &k})
	sized(m, 100, 30)
	press(m, "3", "L")
	if strings.Contains(m.View(), "WDJB-MJHT") {
		t.Fatal("L still opens the sign-in after agents.sign_in = \"ctrl+s\"")
	}
	_, cmd := m.Update(uitest.Key("ctrl+s"))
	for _, msg := range uitest.Run(cmd) {
		_, next := m.Update(msg)
		go uitest.Run(next) // the polling, which waits on the provider
	}
	if !strings.Contains(m.View(), "WDJB-MJHT") {
		t.Fatalf("ctrl+s does not open the sign-in:\n%s", m.View())
	}
	code := base64.StdEncoding.EncodeToString([]byte("WDJB-MJHT"))
	press(m, "c")
	if strings.Contains(term.String(), code) {
		t.Error("c still copies the code after the rebinding")
	}
	press(m, "C")
	if !strings.Contains(term.String(), code) {
		t.Error("C does not copy the code")
	}
	press(m, "esc")
	if !strings.Contains(m.View(), "WDJB-MJHT") {
		t.Fatal("esc still closes the dialog after agents.sign_in_dialog_close = \"x\"")
	}
	press(m, "x")
	if err := <-b.ended; !errors.Is(err, context.Canceled) {
		t.Errorf("x did not close the dialog and stop the polling (%v)", err)
	}
}

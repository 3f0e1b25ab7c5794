package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"

	"github.com/charmbracelet/x/term"

	"a2atop/a2aclient"
	"a2atop/demo"
	"a2atop/hub"
	"a2atop/internal/config"
)

// The demo hub's operators: one who may do everything, one who may only
// answer questions.
var demoOperators = []struct {
	name  string
	roles []string
	about string
}{
	{"alice", []string{"watch", "answer", "approve", "cancel"}, "approves, answers and cancels"},
	{"bob", []string{"watch", "answer"}, "answers questions only"},
}

// demoGroup is the group of the demo's approvers under --four-eyes.
const demoGroup = "release"

// demoHub runs the demo fleet's hub on a loopback port with the demo's
// two operators, prints the command that attaches a second dashboard as
// bob, and runs the dashboard attached as alice until she quits; then
// it stops the hub. dir is the demo's own directory (journal, tokens).
// With fourEyes both operators approve, in group release: the
// deployer's approvals take both their votes.
func demoHub(ctx context.Context, s *session, dir string, relay *taskRelay, fourEyes bool) int {
	cfg := s.cfg
	tokens := map[string]string{}
	for _, op := range demoOperators {
		tok, path, err := demoToken(dir, op.name)
		if err != nil {
			return s.failf(exitFailed, "%v", err)
		}
		tokens[op.name] = tok
		pub, err := demoSSHKey(dir, op.name)
		if err != nil {
			return s.failf(exitFailed, "%v", err)
		}
		o := config.Operator{Name: op.name, TokenFile: path, Roles: map[string][]string{hub.AllAgents: op.roles}}
		o.SSHAuthorizedKeys = []string{pub}
		if fourEyes {
			o.Roles[hub.AllAgents] = []string{"watch", "answer", "approve", "cancel"}
			o.Groups = []string{demoGroup}
		}
		cfg.Operators = append(cfg.Operators, o)
	}
	for i := range cfg.Agents {
		if fourEyes && cfg.Agents[i].Name == demo.Deployer {
			cfg.Agents[i].Approval = &config.Approval{Required: 2, RequireReason: true, Approvers: []string{demoGroup}}
		}
	}
	var sshAddr, hostKey string // set before the hub's URL comes
	s.sshServed = func(addr, key string) { sshAddr, hostKey = addr, key }
	// The agents push to the hub's own address, so the address is chosen
	// before the hub listens on it.
	addr, err := freeLoopback()
	if err != nil {
		return s.failf(exitFailed, "%v", err)
	}
	cfg.PushPublicURL = "http://" + addr
	if err := cfg.Validate(); err != nil {
		return s.failf(exitFailed, "%v", err)
	}
	ops, err := cfg.HubOperators()
	if err != nil {
		return s.failf(exitFailed, "%v", err)
	}
	hctx, stopHub := context.WithCancel(ctx)
	defer stopHub()
	urls := make(chan string, 1)
	served := make(chan int, 1)
	go func() {
		served <- serve(hctx, s, serveFlags{listen: addr, sshListen: "127.0.0.1:0"}, ops, func(mgr *a2aclient.Manager, url string) {
			relay.attach(mgr)
			urls <- url
		})
	}()
	var url string
	select {
	case url = <-urls:
	case code := <-served:
		return code
	}
	s.hub = url
	if fourEyes {
		fmt.Fprintf(s.st.Out, "\nTwo operators, alice and bob, who both approve, answer and cancel.\n"+
			"Four eyes: the deployer's approvals take two votes with a reason, one of each; the first sends nothing.\n")
	} else {
		fmt.Fprintf(s.st.Out, "\nTwo operators: %s (%s) and %s (%s).\n", demoOperators[0].name, demoOperators[0].about, demoOperators[1].name, demoOperators[1].about)
	}
	fmt.Fprintf(s.st.Out, "This terminal is alice's dashboard. Attach bob's from another terminal:\n\n"+
		"  A2ATOP_HUB_TOKEN=\"$(cat %s)\" %s --hub %s\n\n", filepath.Join(dir, "bob.token"), selfCommand(), url)
	s.demoSSHLine(dir, sshAddr, hostKey)
	if s.st.In == nil && term.IsTerminal(os.Stdin.Fd()) {
		fmt.Fprint(s.st.Out, "Press Enter to open alice's dashboard.")
		if !waitEnter(ctx, os.Stdin) { // a signal at the prompt
			stopHub()
			<-served
			return exitOK
		}
	}
	cl, me, code := s.attachWith(ctx, tokens["alice"])
	if cl == nil {
		stopHub()
		<-served
		return code
	}
	code = s.dashboardOn(ctx, cl, me)
	stopHub()
	if hubCode := <-served; code == exitOK {
		code = hubCode
	}
	return code
}

// waitEnter waits for a line on in; false when ctx ended first. The
// read it leaves behind then ends with the process.
func waitEnter(ctx context.Context, in io.Reader) bool {
	read := make(chan struct{})
	go func() { _, _ = fmt.Fscanln(in); close(read) }()
	select {
	case <-read:
		return true
	case <-ctx.Done():
		return false
	}
}

// demoToken makes an operator's token and keeps it in dir/NAME.token
// (mode 0600), where the command printed for bob reads it: the token
// itself is never printed.
func demoToken(dir, name string) (token, path string, err error) {
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", "", err
	}
	token, path = hex.EncodeToString(b[:]), filepath.Join(dir, name+".token")
	if err := os.WriteFile(path, []byte(token+"\n"), 0o600); err != nil {
		return "", "", fmt.Errorf("writing the demo token of %s: %w", name, err)
	}
	return token, path, nil
}

// freeLoopback is a loopback address no one listens on now.
func freeLoopback() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

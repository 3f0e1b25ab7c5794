package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"a2atop/a2aclient"
	"a2atop/internal/config"
	"a2atop/internal/sanitize"
)

// defaultLoginWait bounds how long `a2atop login` waits for the person to
// approve the code (the provider's code usually expires sooner).
const defaultLoginWait = 15 * time.Minute

// runLogin implements `a2atop login [--config FILE] [--timeout D] AGENT`:
// the device sign-in of an agent whose [agent.auth] type is
// oauth2_device (or whose card asks for it), outside the dashboard, for
// scripts and first use. It prints the page to open and the code to enter,
// waits until the person approved it on the provider, and keeps the
// refresh token in the agent's 0600 file in the state directory. Exit: 0
// signed in, 1 refused or expired, 2 bad command line or configuration.
func runLogin(ctx context.Context, args []string, st Streams) int {
	o := newOptions("login", st)
	o.configFlag()
	o.timeoutFlag(defaultLoginWait, "how long to wait for the sign-in to be approved")
	pos, err := o.parse(args)
	if err != nil {
		return flagStatus(err)
	}
	if len(pos) != 1 {
		return o.failf(exitUsage, "name the agent to sign in to: a2atop login AGENT")
	}
	var urls []string
	if strings.Contains(pos[0], "://") {
		urls = pos[:1]
	}
	cfg, code := o.load(urls)
	if cfg == nil {
		return code
	}
	agent, ok := findAgent(cfg, pos[0])
	if !ok {
		return o.failf(exitUsage, "%s", noSuchAgent(cfg, pos[0], "login http://host:port"))
	}
	s := o.open(cfg)
	defer s.Close()
	mgr, code := s.manager()
	if mgr == nil {
		return code
	}
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	return s.login(ctx, mgr, agent)
}

// login runs the device flow of agent and says what happened.
func (s *session) login(ctx context.Context, mgr *a2aclient.Manager, agent config.Agent) int {
	dc, err := mgr.StartLogin(ctx, agent.Name)
	if err != nil {
		return s.failf(exitFailed, "%s", sanitize.Line(a2aclient.Describe(err), 400))
	}
	page := dc.VerificationURI
	if dc.VerificationURIComplete != "" {
		page = dc.VerificationURIComplete
	}
	fmt.Fprintf(s.st.Out, "To sign a2atop in to %s, open\n\n    %s\n\nand enter the code\n\n    %s\n\n",
		sanitize.Line(agent.Name, 64), sanitize.Line(page, 400), sanitize.Line(dc.UserCode, 64))
	if !dc.Expiry.IsZero() {
		fmt.Fprintf(s.st.Out, "The code expires at %s. Waiting for the sign-in to be approved (Ctrl+C to stop)…\n",
			dc.Expiry.Local().Format("15:04:05"))
	}
	s.log.Info("device sign-in started", logKeyAgent, agent.Name)
	if err := mgr.AwaitLogin(ctx, agent.Name, dc); err != nil {
		s.log.Warn("device sign-in failed", logKeyAgent, agent.Name, logKeyErr, a2aclient.Describe(err))
		if ctx.Err() != nil {
			return s.failf(exitFailed, "no approval within the wait: run a2atop login %s again", sanitize.Line(agent.Name, 64))
		}
		return s.failf(exitFailed, "%s", sanitize.Line(a2aclient.Describe(err), 400))
	}
	s.log.Info("device sign-in done", logKeyAgent, agent.Name)
	fmt.Fprintf(s.st.Out, "Signed in. The refresh token is kept in %s (readable by you alone); the dashboard uses it from now on.\n",
		config.RefreshTokenPath(agent.Name))
	return exitOK
}

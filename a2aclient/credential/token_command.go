package credential

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// DefaultCommandTimeout bounds one run of a credential command.
const DefaultCommandTimeout = 30 * time.Second

// commandSource runs a credential command (such as `gcloud auth
// print-identity-token`) and reads the token it prints, as kubectl's
// exec credentials do: either the token alone on one line, or JSON, a
// Kubernetes ExecCredential ({"status":{"token","expirationTimestamp"}})
// or an OAuth 2.0 token response ({"access_token","expires_in"}), which
// also say when it expires. cachedToken keeps the token until then, or
// until the agent refuses it when no expiry is given. The command's
// output never reaches a log or the screen.
type commandSource struct {
	argv    []string
	timeout time.Duration
	now     func() time.Time
}

func (s commandSource) token(ctx context.Context) (string, time.Time, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.argv[0], s.argv[1:]...)
	out := &cappedOutput{max: maxCommandOutput, over: cancel}
	cmd.Stdout = out
	cmd.Stderr = nil // the command's own words may hold secrets: never kept
	ownGroup(cmd)
	// Killed, the command's children may still hold its output open:
	// Wait stops waiting for them this long after the kill.
	cmd.WaitDelay = commandWaitDelay
	name := filepath.Base(s.argv[0])
	if err := cmd.Run(); err != nil || out.exceeded {
		words := fmt.Sprintf("the credential command %q failed (%v): run it by hand to see why", name, err)
		switch {
		case out.exceeded:
			words = fmt.Sprintf("the credential command %q printed more than %d KiB; it should print only the token, or JSON", name, maxCommandOutput>>10)
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			words = fmt.Sprintf("the credential command %q did not finish within %s", name, s.timeout)
		}
		return "", time.Time{}, &CredentialError{Words: words, Err: err}
	}
	tok, exp, err := parseCommandOutput(out.buf.Bytes(), s.now())
	if err != nil {
		return "", time.Time{}, &CredentialError{Words: fmt.Sprintf("the credential command %q: %v", name, err)}
	}
	return tok, exp, nil
}

// maxCommandOutput caps what a credential command may print: a token, an
// ExecCredential or a token response is far smaller.
const maxCommandOutput = 1 << 20

// commandWaitDelay is how long a killed command's children may keep its
// output open before Wait returns anyway.
const commandWaitDelay = 500 * time.Millisecond

// cappedOutput keeps up to max bytes of a command's output; past that it
// refuses the write and calls over (which ends the command).
type cappedOutput struct {
	buf      bytes.Buffer
	max      int
	over     func()
	exceeded bool
}

func (c *cappedOutput) Write(p []byte) (int, error) {
	if c.buf.Len()+len(p) > c.max {
		c.exceeded = true
		c.over()
		return 0, errors.New("the command's output exceeds its cap")
	}
	return c.buf.Write(p)
}

// parseCommandOutput reads a token and its expiry from what a credential
// command printed.
func parseCommandOutput(b []byte, now time.Time) (string, time.Time, error) {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '{' {
		var v struct {
			Status *struct {
				Token               string    `json:"token"`
				ExpirationTimestamp time.Time `json:"expirationTimestamp"`
			} `json:"status"`
			AccessToken string `json:"access_token"`
			ExpiresIn   int64  `json:"expires_in"`
		}
		if err := json.Unmarshal(b, &v); err != nil {
			return "", time.Time{}, errors.New("printed JSON that is neither an ExecCredential nor a token response")
		}
		switch {
		case v.Status != nil && v.Status.Token != "":
			return v.Status.Token, v.Status.ExpirationTimestamp, nil
		case v.AccessToken != "":
			var exp time.Time
			if v.ExpiresIn > 0 {
				exp = now.Add(time.Duration(v.ExpiresIn) * time.Second)
			}
			return v.AccessToken, exp, nil
		}
		return "", time.Time{}, errors.New("printed JSON without a token (status.token or access_token)")
	}
	tok := string(b)
	switch {
	case tok == "":
		return "", time.Time{}, errors.New("printed nothing; it should print the token")
	case strings.ContainsAny(tok, "\r\n"):
		return "", time.Time{}, errors.New("printed more than one line; it should print only the token, or JSON")
	}
	return tok, time.Time{}, nil
}

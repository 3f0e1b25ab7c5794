package a2aclient

import (
	"errors"
	"fmt"
	"strings"

	"a2atop/a2aclient/a2aerr"
	"a2atop/a2aclient/credential"
)

// Describe returns what went wrong in words a person can act on, for the
// agents view, the detail view and the approvals journal. It never
// contains secrets: headers are not part of any error we build, an agent
// that echoes one of ours back in its error message gets it redacted, and
// so do secret-looking query parameters (?api_key=...) in URLs.
func Describe(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) && e.red != nil {
		return e.red.Text(describe(err))
	}
	return credential.RedactQuery(describe(err))
}

func describe(err error) string {
	var e *Error
	url, status, code := "", 0, 0
	if errors.As(err, &e) {
		url, status, code = e.URL, e.Status, e.Code
	}
	if ce := credential.ErrorOf(err); ce != nil {
		return ce.Words
	}
	if errors.Is(err, errPlainHTTP) {
		return plainHTTPRefusal(err)
	}
	if e != nil {
		if w := credential.CertWords(e.certAsked, e.Err); w != "" {
			return joinErr(w, e.certNote)
		}
	}
	inner := innermost(err)
	c := a2aerr.Classify(err)
	if c.Auth() && e != nil && e.withheld != (credential.Origin{}) {
		return withheldWords(statusWords(status, code), e.withheld, e.withheld.Scheme == "http" && e.downgrade)
	}
	switch c {
	case a2aerr.TooLarge:
		if i := strings.Index(inner, errSweepTooLarge.Error()); i >= 0 && isSweepTooLarge(err) {
			return "sweep too large: the sweep" + inner[i+len(errSweepTooLarge.Error()):]
		}
		return "response too large: " + inner + " (raise max_message_bytes if this agent legitimately sends more)"
	case a2aerr.Stalled:
		return "stream stalled: " + inner + " (the agent is trickling bytes or hung; sweeps keep the task up to date)"
	case a2aerr.TLS:
		if strings.Contains(inner, "server gave HTTP response to HTTPS client") {
			return fmt.Sprintf("TLS failed: %s answers in plain http, not https (use an http:// URL for this agent)", orUnknown(url))
		}
		return "TLS failed: " + inner + " (check the certificate, or whether the agent speaks https)"
	case a2aerr.Unauthenticated:
		return fmt.Sprintf("unauthorized%s: the agent did not accept our credentials (check the token configured for this agent)", statusWords(status, code))
	case a2aerr.Forbidden:
		return fmt.Sprintf("forbidden%s: these credentials may not do this", statusWords(status, code))
	case a2aerr.Canceled:
		return "canceled"
	case a2aerr.Cut:
		return "connection cut: the agent closed the connection in the middle of an answer (it may have restarted or crashed; the watcher asks again)"
	case a2aerr.Timeout:
		return "timed out: the agent did not answer in time (it may be overloaded or hanging)"
	case a2aerr.Unreachable, a2aerr.NoAnswer:
		return fmt.Sprintf("unreachable: %s (is the agent running at %s?)", inner, orUnknown(url))
	case a2aerr.CardNotFound:
		return fmt.Sprintf("card not found (404 at %s): is the URL the agent's base URL, or is card_path needed?", orUnknown(url))
	case a2aerr.NotACard:
		return fmt.Sprintf("not an agent card: %s answered with %s (is the URL the agent's base URL, or is card_path needed?)",
			orUnknown(url), strings.TrimPrefix(inner, ErrNotACard.Error()+": "))
	case a2aerr.Version:
		return "version not supported: " + inner + " (set protocol or binding for this agent, or check its card)"
	case a2aerr.TaskNotFound:
		return "task not found: it may have expired, or these credentials cannot see it"
	case a2aerr.NotCancelable:
		return "the task cannot be canceled: it has already ended"
	case a2aerr.InProgress:
		return "this agent expects out-of-band authorization: it refuses messages while the task's execution runs (" + inner + ")"
	case a2aerr.Unsupported:
		return "the agent does not support this operation: " + inner
	case a2aerr.Invalid, a2aerr.TaskEnded:
		return "the agent rejected the request as invalid: " + inner
	case a2aerr.Protocol:
		return "protocol error: the agent's answer is not valid A2A" + statusWords(status, code) + ": " + inner
	}
	if code != 0 {
		return fmt.Sprintf("agent error %d: %s", code, inner)
	}
	return inner
}

// plainHTTPRefusal is the refusal of downgrade.go, without the method
// and URL net/http puts before it (the refusal names the URL).
func plainHTTPRefusal(err error) string {
	inner := innermost(err)
	if i := strings.Index(inner, refusedPlain); i > 0 {
		inner = inner[i:]
	}
	return inner
}

func statusWords(status, code int) string {
	switch {
	case status != 0 && status != 200 && code != 0:
		return fmt.Sprintf(" (HTTP %d, code %d)", status, code)
	case status != 0 && status != 200:
		return fmt.Sprintf(" (HTTP %d)", status)
	case code != 0:
		return fmt.Sprintf(" (code %d)", code)
	}
	return ""
}

func orUnknown(s string) string {
	if s == "" {
		return "the configured URL"
	}
	return s
}

// innermost returns the message of err below our own *Error wrapper,
// trimmed of the SDK's "failed to send HTTP request:" style prefixes.
func innermost(err error) string {
	var e *Error
	if errors.As(err, &e) && e.Err != nil {
		err = e.Err
	}
	msg := err.Error()
	for _, p := range []string{"failed to send HTTP request: ", "card request failed: "} {
		msg = strings.TrimPrefix(msg, p)
	}
	const max = 300
	if len(msg) > max {
		msg = msg[:max] + "…"
	}
	return msg
}

// withheldWords explains a refusal by an interface our secrets were kept
// from: in plain http where https was configured, or on another origin.
func withheldWords(status string, o credential.Origin, downgrade bool) string {
	if downgrade {
		return fmt.Sprintf("unauthorized%s: our credentials were not sent: the card's interface is %s, in plain http, "+
			"while the configured url is https; a2atop never sends credentials in clear text (ask the agent's owner to fix the card)",
			status, o)
	}
	return fmt.Sprintf("unauthorized%s: our credentials were not sent: the card's interface is on %s, "+
		"another origin than the configured url; if you trust it, add %q to allowed_hosts", status, o, o.HostPort)
}

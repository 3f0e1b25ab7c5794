package config

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
)

// PushOn reports whether push notifications are configured: a2atop then
// serves a webhook and registers push configs with the agents that offer
// push.
func (c *Config) PushOn() bool { return c.PushPublicURL != "" }

// validatePush checks push_public_url (an absolute http or https URL
// with no user, query or fragment) and push_listen (host:port, and only
// with push_public_url).
func (c *Config) validatePush() error {
	fail := func(key, format string, args ...any) error {
		return &Error{File: c.Path, Line: c.lines.lineOf(key), Key: key, Msg: fmt.Sprintf(format, args...)}
	}
	if c.PushListen != "" {
		if c.PushPublicURL == "" {
			return fail("push_listen", "set push_public_url too: the URL the agents reach %s at", c.PushListen)
		}
		_, port, err := net.SplitHostPort(c.PushListen)
		if n, perr := strconv.Atoi(port); err != nil || perr != nil || n < 0 || n > 65535 {
			return fail("push_listen", "%q is not host:port (like \"0.0.0.0:7718\" or \":7718\")", c.PushListen)
		}
	}
	if c.PushPublicURL == "" {
		return nil
	}
	u, err := url.Parse(c.PushPublicURL)
	switch {
	case err != nil || !u.IsAbs() || u.Host == "":
		return fail("push_public_url", "%q is not an absolute URL like \"https://hub.example.com:7717\"", shown(c.PushPublicURL))
	case u.Scheme != "https" && u.Scheme != "http":
		return fail("push_public_url", "%q: the agents POST to it over http or https, not %s", shown(c.PushPublicURL), u.Scheme)
	case u.User != nil:
		return fail("push_public_url", "a user in the URL is not sent to the agents as a secret: leave it out (each config carries a token of its own)")
	case u.RawQuery != "" || u.Fragment != "":
		return fail("push_public_url", "%q: no query or fragment; a2atop adds /push/<agent> to the URL", shown(c.PushPublicURL))
	}
	return nil
}

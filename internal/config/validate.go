package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"unicode"

	"a2atop/approvals"
	"a2atop/model"
)

// AddURLs appends one agent per base URL given on the command line, named
// after its host:port. A URL already configured is not added twice; a name
// already taken gets a "#2", "#3"... suffix.
func (c *Config) AddURLs(urls []string) error {
	for _, raw := range urls {
		u, err := parseBaseURL(raw)
		if err != nil {
			return &Error{Key: fmt.Sprintf("argument %q", shown(raw)), Msg: err.Error()}
		}
		if slices.ContainsFunc(c.Agents, func(a Agent) bool { return sameURL(a.URL, raw) }) {
			continue
		}
		name := u.Host
		for n := 2; c.hasAgent(name); n++ {
			name = fmt.Sprintf("%s#%d", u.Host, n)
		}
		c.Agents = append(c.Agents, Agent{Name: name, URL: raw, FromArgs: true})
	}
	return nil
}

func (c *Config) hasAgent(name string) bool {
	return slices.ContainsFunc(c.Agents, func(a Agent) bool { return a.Name == name })
}

func sameURL(a, b string) bool {
	return strings.TrimRight(a, "/") == strings.TrimRight(b, "/")
}

// Validate checks the whole config and returns the first problem as an
// *Error: unique names, absolute http(s) URLs, known enum values, positive
// durations, well-formed auth, and no secret written in the file.
func (c *Config) Validate() error {
	fail := func(key, format string, args ...any) error {
		return &Error{File: c.Path, Line: c.lines.lineOf(key), Key: key, Msg: fmt.Sprintf(format, args...)}
	}
	if err := c.validateDashboard(); err != nil {
		return err
	}
	if !slices.Contains(Themes, c.Theme) {
		return fail("theme", "%q is not a theme; use one of %s", c.Theme, strings.Join(Themes, ", "))
	}
	if c.JournalPath == "" {
		return fail("journal_path", "must not be empty")
	}
	if c.JournalMemory <= 0 {
		return fail("journal_memory", "must be a count of entries of 1 or more, like 10000, not %d", c.JournalMemory)
	}
	if c.LogPath == "" {
		return fail("log_path", "must not be empty")
	}
	if c.SweepInterval.Duration <= 0 {
		return fail("sweep_interval", "must be a positive duration like \"5s\", not %s", c.SweepInterval)
	}
	if c.FullResync.Duration <= 0 {
		return fail("full_resync", "must be a positive duration like \"1m\", not %s", c.FullResync)
	}
	if c.MaxStreams < 0 {
		return fail("max_streams", "must be 0 (no streams) or more, not %d", c.MaxStreams)
	}
	if c.MaxMessageBytes <= 0 {
		return fail("max_message_bytes", "must be positive, not %d", c.MaxMessageBytes)
	}
	if err := c.Scale.validate(fail); err != nil {
		return err
	}
	seen := map[string]int{}
	for i, a := range c.Agents {
		if err := c.validateAgent(i, &a, seen); err != nil {
			return err
		}
	}
	if err := c.validatePush(); err != nil {
		return err
	}
	if err := c.validateApprovers(); err != nil {
		return err
	}
	if err := c.validateStore(); err != nil {
		return err
	}
	return c.validateTeam()
}

// validateAgent checks the agent at index i, given the names seen before
// it. The *Error names the agent and, for an agent from the file, the
// line of the key at fault.
func (c *Config) validateAgent(i int, a *Agent, seen map[string]int) error {
	if j, dup := seen[a.Name]; dup && a.Name != "" {
		ce := c.agentError(i, a, &Error{Key: "name", Msg: fmt.Sprintf("the name is used twice (agents %d and %d); names must be unique", j+1, i+1)}).(*Error)
		ce.Key = strings.TrimSuffix(ce.Key, ".name") // the agent is at fault, at its name's line
		return ce
	}
	seen[a.Name] = i
	return c.agentError(i, a, a.validate())
}

// agentError places err, about the agent at index i, in the file: an
// *Error's Key, relative to the agent ("auth.token_env"), becomes the
// agent's ("agent \"a\".auth.token_env") and gives the line; an agent
// from the command line has neither file nor line. nil stays nil.
func (c *Config) agentError(i int, a *Agent, err error) error {
	if err == nil {
		return nil
	}
	at := fmt.Sprintf("agent[%d]", i+1) // how keyLines names it
	key := at
	if a.Name != "" {
		key = fmt.Sprintf("agent %q", a.Name)
	}
	var ce *Error
	if !errors.As(err, &ce) {
		ce = &Error{Msg: err.Error(), Err: err}
	}
	rel := ce.Key
	ce.File, ce.Line, ce.Key = c.Path, c.lines.lineOf(at+"."+rel), key+"."+rel
	if rel == "" {
		ce.Line, ce.Key = c.lines.lineOf(at), key
	}
	if a.FromArgs {
		ce.File, ce.Line = "", 0
	}
	return ce
}

// located places err, about the config's own key (as keyLines names it:
// "operator[2].token_file", "hub_token_file"), in the file. nil stays nil.
func (c *Config) located(err error) error {
	var ce *Error
	if err == nil || !errors.As(err, &ce) {
		return err
	}
	ce.File, ce.Line = c.Path, c.lines.lineOf(ce.Key)
	return ce
}

// validate checks one agent; the *Error's Key is relative to the agent.
func (a *Agent) validate() error {
	fail := func(key, format string, args ...any) error {
		return &Error{Key: key, Msg: fmt.Sprintf(format, args...)}
	}
	if err := checkName(a.Name); err != nil {
		return fail("name", "%v", err)
	}
	if _, err := parseBaseURL(a.URL); err != nil {
		return fail("url", "%v", err)
	}
	if a.CardPath != "" && !strings.HasPrefix(a.CardPath, "/") {
		return fail("card_path", "%q must be a path starting with \"/\", like \"/.well-known/agent-card.json\"", a.CardPath)
	}
	if a.Binding != "" && !slices.Contains(Bindings, a.Binding) {
		return fail("binding", "%q is not a binding; use one of %s", a.Binding, strings.Join(Bindings, ", "))
	}
	if a.Protocol != "" && !slices.Contains(Protocols, a.Protocol) {
		return fail("protocol", "%q is not a protocol version; use one of %s", a.Protocol, strings.Join(Protocols, ", "))
	}
	if a.SweepInterval != nil && a.SweepInterval.Duration <= 0 {
		return fail("sweep_interval", "must be a positive duration like \"5s\", not %s", a.SweepInterval)
	}
	if a.HistoryLength < 0 {
		return fail("history_length", "must be 0 (the agent's default) or more, not %d", a.HistoryLength)
	}
	for i, t := range a.Tasks {
		if strings.TrimSpace(t) == "" {
			return fail(fmt.Sprintf("tasks[%d]", i+1), "a task id must not be empty")
		}
		if err := model.CheckTaskID(t); err != nil {
			return fail(fmt.Sprintf("tasks[%d]", i+1), "%v; a2atop sends no such id", err)
		}
	}
	if a.Approval != nil {
		if err := a.Approval.template().Validate(); err != nil {
			return fail(a.Approval.keyAtFault(), "%v", err)
		}
		if err := a.Approval.validatePolicy(); err != nil {
			return err
		}
	}
	return a.Auth.validate()
}

// keyAtFault is the key of an approval table whose template does not
// validate: a text with an unknown placeholder, else the data.
func (ap *Approval) keyAtFault() string {
	if (approvals.Template{ApproveText: ap.ApproveText}).Validate() != nil {
		return "approval.approve_text"
	}
	if (approvals.Template{DenyText: ap.DenyText}).Validate() != nil {
		return "approval.deny_text"
	}
	return "approval.data"
}

// checkName accepts names that fit on a row and in a filter: no spaces or
// control characters, at most 64 characters.
func checkName(name string) error {
	if name == "" {
		return errors.New("every agent needs a name")
	}
	if len([]rune(name)) > 64 {
		return errors.New("a name has at most 64 characters")
	}
	if i := strings.IndexFunc(name, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }); i >= 0 {
		return fmt.Errorf("%q holds a space or control character; use letters, digits, '-', '_' or '.'", name)
	}
	return nil
}

// parseBaseURL accepts an absolute http or https URL with a host and no
// user information.
func parseBaseURL(raw string) (*url.URL, error) {
	if raw == "" {
		return nil, errors.New("every agent needs a url, like \"http://127.0.0.1:9001\"")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%q is not a URL", shown(raw))
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("%q must be an absolute http:// or https:// URL (the agent's base URL)", shown(raw))
	}
	if u.Host == "" {
		return nil, fmt.Errorf("%q has no host", shown(raw))
	}
	if u.User != nil {
		return nil, errors.New("the url holds a user name or password; put credentials in [agent.auth] with token_env or token_file")
	}
	for name := range u.Query() {
		if secretParams[strings.ToLower(name)] {
			return nil, fmt.Errorf("the url's query holds a secret (%s=...): secrets are not written in the config "+
				"and a2atop sends them only in headers; put it in [agent.auth] with token_env or token_file", name)
		}
	}
	return u, nil
}

// shown is raw for an error message: without its query and anything
// before an "@", where secrets would be.
func shown(raw string) string {
	if i := strings.IndexAny(raw, "?#"); i >= 0 {
		raw = raw[:i] + "?…"
	}
	if i := strings.LastIndexByte(raw, '@'); i >= 0 {
		scheme, _, ok := strings.Cut(raw, "://")
		if ok && len(scheme) < i {
			return scheme + "://…" + raw[i:]
		}
		return "…" + raw[i:]
	}
	return raw
}

// secretParams are query parameter names that carry secrets.
var secretParams = map[string]bool{
	"api_key": true, "apikey": true, "api-key": true, "key": true, "token": true, "access_token": true,
	"auth": true, "password": true, "secret": true, "client_secret": true, "sig": true, "signature": true,
}

// validate checks an [agent.auth] table; keys are relative to the agent.
func (au *Auth) validate() error {
	fail := func(key, format string, args ...any) error {
		return &Error{Key: key, Msg: fmt.Sprintf(format, args...)}
	}
	const literal = "secrets are not written in the config file: put the token in an environment " +
		"variable or a file and name it with token_env or token_file"
	if au.Token != nil {
		return fail("auth.token", literal)
	}
	if au.APIKey != nil {
		return fail("auth.api_key", literal)
	}
	if au.TokenEnv != "" && au.TokenFile != "" {
		return fail("auth", "set token_env or token_file, not both")
	}
	hasToken := au.TokenEnv != "" || au.TokenFile != ""
	if au.APIKeyHeader != "" {
		if !hasToken {
			return fail("auth.api_key_header", "needs token_env or token_file for the key's value")
		}
		if !validHeaderName(au.APIKeyHeader) {
			return fail("auth.api_key_header", "%q is not a valid header name", au.APIKeyHeader)
		}
	}
	names := map[string]bool{}
	if hasToken {
		if au.APIKeyHeader != "" {
			names[strings.ToLower(au.APIKeyHeader)] = true
		} else {
			names["authorization"] = true
		}
	}
	for i, h := range au.Headers {
		key := fmt.Sprintf("auth.headers[%d]", i+1)
		switch {
		case h.Value != nil:
			return fail(key+".value", "secrets are not written in the config file: put the value in an "+
				"environment variable or a file and name it with value_env or value_file")
		case !validHeaderName(h.Name):
			return fail(key+".name", "%q is not a valid header name", h.Name)
		case names[strings.ToLower(h.Name)]:
			return fail(key+".name", "header %q is set twice", h.Name)
		case (h.ValueEnv == "") == (h.ValueFile == ""):
			return fail(key, "set exactly one of value_env or value_file")
		}
		names[strings.ToLower(h.Name)] = true
	}
	for i, hp := range au.AllowedHosts {
		host, port, err := net.SplitHostPort(hp)
		if err != nil || host == "" || port == "" {
			return fail(fmt.Sprintf("auth.allowed_hosts[%d]", i+1),
				"%q must be host:port, like \"auth.example.com:443\"", hp)
		}
	}
	return au.validateCredential()
}

// validHeaderName reports whether s is an HTTP header field name (RFC 9110 token).
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r > 0x7e || r <= 0x20 || strings.ContainsRune("\"(),/:;<=>?@[\\]{}", r) {
			return false
		}
	}
	return true
}

// validate checks the scale keys: every bound is positive.
func (s *Scale) validate(fail func(key, format string, args ...any) error) error {
	for _, k := range []struct {
		key string
		v   int64
	}{
		{"terminal_per_agent", int64(s.TerminalPerAgent)}, {"max_open_tasks", int64(s.MaxOpenTasks)},
		{"terminal_total", int64(s.TerminalTotal)},
		{"max_agent_bytes", int64(s.MaxAgentBytes)}, {"list_concurrency", int64(s.ListConcurrency)},
		{"max_fleet_bytes", int64(s.MaxFleetBytes)}, {"max_streams_total", int64(s.MaxStreamsTotal)},
		{"max_sweep_bytes", s.MaxSweepBytes}, {"max_sweep_pages", int64(s.MaxSweepPages)},
	} {
		if k.v <= 0 {
			return fail(k.key, "must be positive, not %d", k.v)
		}
	}
	if s.ListConcurrency > 64 {
		return fail("list_concurrency", "at most 64 listings of one agent at once, not %d", s.ListConcurrency)
	}
	return nil
}

package config

import (
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/a2aclient"
	"a2atop/approvals"
	"a2atop/internal/secretfile"
	"a2atop/model"
)

// AgentOptions turns the validated config into the options package
// a2aclient watches with, reading every secret now: environment variables
// and files named by token_env, token_file, value_env and value_file.
// Relative file names are taken from the config file's directory; "~/"
// is the home directory. Errors are *Error naming the file, the line,
// the agent and the key, never the secret's value.
func (c *Config) AgentOptions() ([]a2aclient.AgentOptions, error) {
	out := make([]a2aclient.AgentOptions, 0, len(c.Agents))
	for i := range c.Agents {
		o, err := c.AgentOption(i)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}

// AgentOption is AgentOptions for the agent at index i alone, so that a
// command that reports per agent (check, tasks) can go on without one
// whose secrets cannot be read.
func (c *Config) AgentOption(i int) (a2aclient.AgentOptions, error) {
	a := c.Agents[i]
	headers, err := c.resolveAuth(a.Auth)
	if err != nil {
		return a2aclient.AgentOptions{}, c.agentError(i, &a, err)
	}
	auth, tlsCfg, err := c.resolveCredential(a.Name, a.Auth)
	if err != nil {
		return a2aclient.AgentOptions{}, c.agentError(i, &a, err)
	}
	sweep := c.SweepInterval.Duration
	if a.SweepInterval != nil {
		sweep = a.SweepInterval.Duration
	}
	tasks := make([]a2a.TaskID, len(a.Tasks))
	for i, t := range a.Tasks {
		tasks[i] = a2a.TaskID(t)
	}
	return a2aclient.AgentOptions{
		Name:             a.Name,
		URL:              a.URL,
		CardPath:         a.CardPath,
		Binding:          orAuto(a.Binding),
		Protocol:         orAuto(a.Protocol),
		Tenant:           a.Tenant,
		Headers:          headers,
		Auth:             auth,
		TLS:              tlsCfg,
		AllowedHosts:     append([]string(nil), a.Auth.AllowedHosts...),
		SweepInterval:    sweep,
		FullResync:       c.FullResync.Duration,
		Subscribe:        (a.Subscribe == nil || *a.Subscribe) && c.MaxStreams > 0,
		MaxStreams:       c.MaxStreams,
		HistoryLength:    a.HistoryLength,
		Tasks:            tasks,
		MaxMessageBytes:  c.MaxMessageBytes,
		ChainMetadataKey: a.ChainKey,
		ReadOnly:         c.ReadOnly || a.ReadOnly,
		TerminalPerAgent: c.TerminalKept(),
		MaxOpenTasks:     c.MaxOpenTasks,
		ListConcurrency:  c.ListConcurrency,
		MaxSweepBytes:    c.MaxSweepBytes,
		MaxSweepPages:    c.MaxSweepPages,
		ListAll:          !c.ListByState,
	}, nil
}

func orAuto(s string) string {
	if s == "" {
		return "auto"
	}
	return s
}

// resolveAuth reads an agent's static secret headers ([[agent.auth.headers]]);
// the token is the credential's (resolveCredential).
func (c *Config) resolveAuth(au Auth) ([]a2aclient.Header, error) {
	var out []a2aclient.Header
	for i, h := range au.Headers {
		key := fmt.Sprintf("auth.headers[%d]", i+1)
		v, err := c.secret(key+".value_env", h.ValueEnv, key+".value_file", h.ValueFile)
		if err != nil {
			return nil, err
		}
		out = append(out, a2aclient.Header{Name: h.Name, Value: v})
	}
	return out, nil
}

// secret reads one secret from the environment variable env or the file
// file (exactly one is set). Surrounding white space is dropped; an empty
// secret is an error. Errors are an *Error whose Key is envKey or
// fileKey, for the caller to place in the file (agentError, located).
func (c *Config) secret(envKey, env, fileKey, file string) (string, error) {
	if env != "" {
		v := strings.TrimSpace(os.Getenv(env))
		if v == "" {
			return "", &Error{Key: envKey, Msg: fmt.Sprintf("environment variable %s is not set or empty; export it before starting a2atop", env)}
		}
		return v, nil
	}
	path := c.resolvePath(file)
	fail := func(format string, args ...any) error { return &Error{Key: fileKey, Msg: fmt.Sprintf(format, args...)} }
	data, err := secretfile.Read(path)
	if err != nil {
		return "", &Error{Key: fileKey, Msg: fmt.Sprintf("cannot read %s: %v", path, secretfile.Reason(err)), Err: err}
	}
	v := strings.TrimSpace(string(data))
	if v == "" {
		return "", fail("%s is empty; it should hold the secret", path)
	}
	if strings.ContainsAny(v, "\r\n") {
		return "", fail("%s holds more than one line; it should hold only the secret", path)
	}
	return v, nil
}

// resolvePath expands "~/" and makes a relative path relative to the
// config file's directory (or the working directory without a file).
func (c *Config) resolvePath(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	if filepath.IsAbs(p) || c.Path == "" {
		return p
	}
	return filepath.Join(filepath.Dir(c.Path), p)
}

// ExpandPaths resolves JournalPath and LogPath as AgentOptions resolves
// secret files ("~/" is home, relative paths are relative to the config
// file), and splits an agent url that names the card itself into the
// base URL and card_path (see splitCardURL).
func (c *Config) ExpandPaths() {
	c.JournalPath = c.resolvePath(c.JournalPath)
	c.LogPath = c.resolvePath(c.LogPath)
	st := &c.Hub.Store
	for _, p := range []*string{&c.TLSCertFile, &c.TLSKeyFile, &c.HubTokenFile, &st.CredsFile, &st.CAFile, &st.CertFile, &st.KeyFile,
		&c.Hub.ClusterCAFile, &c.Hub.ClusterCertFile, &c.Hub.ClusterKeyFile, &c.Hub.ClusterPasswordFile} {
		if *p != "" {
			*p = c.resolvePath(*p)
		}
	}
	for i := range c.Agents {
		c.Agents[i].splitCardURL()
	}
}

// wellKnownCards are the card paths of A2A 1.0 and of older agents.
var wellKnownCards = []string{"/.well-known/agent-card.json", "/.well-known/agent.json"}

// splitCardURL accepts the card's own URL where the base URL belongs, as
// people copy it from a browser: "http://h:p/.well-known/agent-card.json"
// becomes url "http://h:p" and card_path "/.well-known/agent-card.json"
// (the base ends where the well-known path starts), and a url whose last
// segment ends in ".json" ("http://h:p/agents/x/card.json") becomes the
// directory and the file. A url with a query or a fragment, and an agent
// that sets card_path, are left as they are.
func (a *Agent) splitCardURL() {
	u, err := url.Parse(a.URL)
	if a.CardPath != "" || err != nil || u.RawQuery != "" || u.Fragment != "" {
		return
	}
	base, card := "", ""
	for _, wk := range wellKnownCards {
		if b, ok := strings.CutSuffix(u.Path, wk); ok {
			base, card = b, wk
			break
		}
	}
	if card == "" && strings.HasSuffix(u.Path, ".json") {
		base, card = path.Dir(u.Path), "/"+path.Base(u.Path)
	}
	if card == "" {
		return
	}
	u.Path, u.RawPath = strings.TrimRight(base, "/"), ""
	a.URL, a.CardPath = u.String(), card
}

// AgentNames returns the agents' names in config order.
func (c *Config) AgentNames() []string {
	names := make([]string, len(c.Agents))
	for i, a := range c.Agents {
		names[i] = a.Name
	}
	return names
}

// FleetOptions are the model.Fleet's bounds from the config: the terminal
// tasks kept per agent (as the watchers keep), the content per agent and
// in all, the chain keys.
func (c *Config) FleetOptions() model.Options {
	return model.Options{MaxTerminalPerAgent: c.TerminalKept(), MaxAgentBytes: c.MaxAgentBytes,
		MaxFleetBytes: c.MaxFleetBytes, ChainKeys: c.ChainKeys()}
}

// TerminalKept is how many terminal tasks each agent keeps: its share of
// terminal_total among the configured agents, at most terminal_per_agent.
func (c *Config) TerminalKept() int {
	return model.TerminalKept(c.TerminalPerAgent, c.TerminalTotal, len(c.Agents))
}

// ChainKeys maps each agent that sets chain_metadata_key to its key, for
// model.Options.ChainKeys.
func (c *Config) ChainKeys() map[string]string {
	m := map[string]string{}
	for _, a := range c.Agents {
		if a.ChainKey != "" {
			m[a.Name] = a.ChainKey
		}
	}
	return m
}

// Templates maps each agent with an [agent.approval] table to its
// approve/deny shape, for approvals.Options.Templates.
func (c *Config) Templates() map[string]approvals.Template {
	m := map[string]approvals.Template{}
	for _, a := range c.Agents {
		if a.Approval != nil {
			m[a.Name] = a.Approval.template()
		}
	}
	return m
}

func (ap *Approval) template() approvals.Template {
	return approvals.Template{ApproveText: ap.ApproveText, DenyText: ap.DenyText, Data: ap.Data, NoData: ap.NoData}
}

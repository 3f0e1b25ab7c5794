package config

import (
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/pelletier/go-toml/v2/unstable"

	"a2atop/a2aclient"
	"a2atop/model"
)

// The accepted values of the enumerated keys.
var (
	Themes    = []string{"auto", "dark", "light"}
	Bindings  = []string{"auto", "jsonrpc", "rest", "grpc"}
	Protocols = []string{"auto", "1.0", "0.3"}
)

// Config is the whole configuration file. Use Default for a Config with
// every default filled in; the zero value has no defaults.
type Config struct {
	// Theme is "auto", "dark" or "light": the theme key as a string, or
	// the mode of a [theme] table (see ThemeSetting).
	Theme string `toml:"-"`
	// JournalPath is the approvals audit journal (JSONL).
	JournalPath string `toml:"journal_path"`
	// JournalMemory is how many journal entries (decisions and
	// observations) the dashboard and the hub keep in memory, the newest,
	// besides the open decisions, always kept; older ones stay in the file
	// (a2atop journal export reads them all). Default 10,000
	// (approvals.DefaultMemory).
	JournalMemory int `toml:"journal_memory"`
	// JournalSegment is when the journal file is closed (kept beside it,
	// read-only, still read by a2atop journal) and a new one begun: at a
	// size, an age or both. Default 64MiB.
	JournalSegment JournalSegment `toml:"journal_segment"`
	// LogPath is where logs go; nothing is logged to the terminal.
	LogPath string `toml:"log_path"`
	// Bell rings the terminal bell when a task enters the inbox.
	Bell bool `toml:"bell"`
	// ReadOnly hides every action that writes to an agent.
	ReadOnly bool `toml:"read_only"`
	// Approver names the person in approve/deny replies and the journal;
	// "" means user@host.
	Approver string `toml:"approver"`
	// SweepInterval is the default ListTasks period of every agent.
	SweepInterval Duration `toml:"sweep_interval"`
	// FullResync is how often a sweep ignores its high-water mark.
	FullResync Duration `toml:"full_resync"`
	// MaxStreams caps the SubscribeToTask streams per agent.
	MaxStreams int `toml:"max_streams"`
	// MaxMessageBytes caps one response body or SSE event.
	MaxMessageBytes int64 `toml:"max_message_bytes"`

	// What watching costs an agent and the dashboard (see Scale).
	Scale
	// The dashboard over SSH (ssh.go).
	SSH
	// Agents are the [[agent]] tables, in file order, then URL arguments.
	Agents []Agent `toml:"agent"`

	// What the dashboard does for the person at the keys (dashboard.go):
	// old terminal tasks, notifications, saved views, keys and colours.

	// HideTerminalAfter keeps off the Terminal pane the tasks that ended
	// longer ago; 0 keeps them all.
	HideTerminalAfter Duration `toml:"hide_terminal_after"`
	// Notifications announces a task that starts waiting for a person:
	// "auto" and "osc9" write an OSC 9 desktop notification, "osc777"
	// the OSC 777 one (rxvt, foot, kitty), "off" none; any but "off" also
	// keeps the count of waiting tasks in the terminal's title.
	Notifications string `toml:"notifications"`
	// Views are the [[view]] tables: saved views of the tasks.
	Views []View `toml:"view"`
	// Keys is the [keys] table as written: [keys.SCREEN] tables of
	// ACTION = "key" or ["key", ...]. Validate reads it into KeyBinds.
	Keys     map[string]map[string]any `toml:"keys"`
	KeyBinds map[string][]string       `toml:"-"` // "tasks.cancel" -> keys
	// ThemeSetting is the theme key as written: a mode string, or a
	// [theme] table of mode and colour tokens. Validate reads it into
	// Theme and Colors.
	ThemeSetting any              `toml:"theme"`
	Colors       map[string]Color `toml:"-"` // token -> its light and dark values

	// Team mode (a2atop serve, a2atop --hub). TLSCertFile and TLSKeyFile
	// are the hub's certificate and key (PEM files): a hub on any address
	// but loopback needs them unless --insecure. HubTokenFile holds the
	// operator token a dashboard attached to a hub sends, when
	// $A2ATOP_HUB_TOKEN is not set. Operators are the [[operator]]
	// tables: who the hub serves, and what each may do.
	TLSCertFile  string     `toml:"tls_cert_file"`
	TLSKeyFile   string     `toml:"tls_key_file"`
	HubTokenFile string     `toml:"hub_token_file"`
	Operators    []Operator `toml:"operator"`
	// Hub is the [hub] table: where a team's hubs keep their shared
	// record (see store.go); empty for one hub on its journal file.
	Hub Hub `toml:"hub"`

	// Push notifications (see push.go): PushPublicURL is the base URL the
	// agents reach a2atop's webhook at; PushListen is where it listens
	// ("" = a2atop serve's own address; a dashboard needs it).
	PushPublicURL string `toml:"push_public_url"`
	PushListen    string `toml:"push_listen"`

	// Path is the file this came from; "" when no file was read.
	Path string `toml:"-"`
	// lines locates the keys of the file, for Validate's errors.
	lines keyLines
	// at prefixes the keys At names: "operator[2]." in an OperatorLook.
	at string
}

// Scale is what watching may cost, per agent and for the whole fleet:
// the tasks kept, the content they hold, the streams, and what one sweep
// may read. Its keys are at the
// top level of the file.
type Scale struct {
	// TerminalPerAgent is how many terminal tasks are kept per agent, the
	// newest; the first sweep lists no more of them.
	TerminalPerAgent int `toml:"terminal_per_agent"`
	// TerminalTotal caps the terminal tasks kept by all agents together:
	// each agent keeps an even share, at most TerminalPerAgent (see
	// model.TerminalKept).
	TerminalTotal int `toml:"terminal_total"`
	// MaxOpenTasks caps the tasks kept per agent that are not terminal.
	MaxOpenTasks int `toml:"max_open_tasks"`
	// MaxAgentBytes caps the content one agent's tasks hold together.
	MaxAgentBytes int `toml:"max_agent_bytes"`
	// MaxFleetBytes caps the content all agents' tasks hold together;
	// the agents share it out.
	MaxFleetBytes int `toml:"max_fleet_bytes"`
	// MaxStreamsTotal caps the SubscribeToTask streams of all agents
	// together; the agents share it out (each at most max_streams).
	MaxStreamsTotal int `toml:"max_streams_total"`
	// ListByState lists by status (inbox first, open states only on
	// resyncs); false lists every task in every full sweep.
	ListByState bool `toml:"list_by_state"`
	// ListConcurrency is how many ListTasks of one sweep may run at once.
	ListConcurrency int `toml:"list_concurrency"`
	// MaxSweepBytes caps the response bytes of one sweep.
	MaxSweepBytes int64 `toml:"max_sweep_bytes"`
	// MaxSweepPages caps the ListTasks pages of one sweep.
	MaxSweepPages int `toml:"max_sweep_pages"`
}

// Agent is one [[agent]] table.
type Agent struct {
	Name     string `toml:"name"`
	URL      string `toml:"url"`
	CardPath string `toml:"card_path"`
	Binding  string `toml:"binding"`
	Protocol string `toml:"protocol"`
	Tenant   string `toml:"tenant"`
	Auth     Auth   `toml:"auth"`
	// SweepInterval overrides the global one when set.
	SweepInterval *Duration `toml:"sweep_interval"`
	// Subscribe opens SubscribeToTask streams; nil means true.
	Subscribe     *bool    `toml:"subscribe"`
	HistoryLength int      `toml:"history_length"`
	ReadOnly      bool     `toml:"read_only"`
	ChainKey      string   `toml:"chain_metadata_key"`
	Tasks         []string `toml:"tasks"`
	// Approval shapes this agent's approve/deny replies; nil is the default.
	Approval *Approval `toml:"approval"`

	// FromArgs is true for an agent added from a command-line URL.
	FromArgs bool `toml:"-"`
}

// Auth is an agent's [agent.auth] table. Values name where a secret lives;
// they never hold the secret.
type Auth struct {
	// TokenEnv and TokenFile name where the token is (at most one).
	TokenEnv  string `toml:"token_env"`
	TokenFile string `toml:"token_file"`
	// APIKeyHeader sends the token in this header instead of
	// "Authorization: Bearer".
	APIKeyHeader string `toml:"api_key_header"`
	// Headers are further headers whose values are secrets.
	Headers []Header `toml:"headers"`
	// AllowedHosts are extra "host:port" that may receive the secrets.
	AllowedHosts []string `toml:"allowed_hosts"`

	// Token and APIKey exist only to refuse a literal secret with a
	// helpful error instead of "unknown key".
	Token  *string `toml:"token"`
	APIKey *string `toml:"api_key"`

	// The credential beyond a static token, and the card's trust (see
	// auth.go, which validates and resolves them).

	// Type is "bearer", "api_key", "oauth2_client_credentials",
	// "oauth2_device", "command" or "mtls"; "" lets the card's security
	// requirements choose among what this table provides.
	Type string `toml:"type"`
	// ClientID and the client secret (from an environment variable or a
	// file) identify a2atop to an OAuth 2.0 token endpoint.
	ClientID         string `toml:"client_id"`
	ClientSecretEnv  string `toml:"client_secret_env"`
	ClientSecretFile string `toml:"client_secret_file"`
	// Scopes are asked for; none means the card's.
	Scopes []string `toml:"scopes"`
	// TokenURL and DeviceAuthorizationURL override the card's endpoints.
	TokenURL               string `toml:"token_url"`
	DeviceAuthorizationURL string `toml:"device_authorization_url"`
	// Command is a credential command and its arguments.
	Command        []string  `toml:"command"`
	CommandTimeout *Duration `toml:"command_timeout"`
	// CertFile and KeyFile are a client certificate (mTLS); CAFile the
	// roots to trust for the agent's TLS certificate.
	CertFile string `toml:"cert_file"`
	KeyFile  string `toml:"key_file"`
	CAFile   string `toml:"ca_file"`
	// JWKSURL or CardKeyFile pin the keys the card must be signed with;
	// RequireSignedCard refuses an agent whose card does not verify.
	JWKSURL           string `toml:"jwks_url"`
	CardKeyFile       string `toml:"card_key_file"`
	RequireSignedCard bool   `toml:"require_signed_card"`
	// ClientSecret exists only to refuse a literal secret.
	ClientSecret *string `toml:"client_secret"`
}

// Approval is an agent's [agent.approval] table: the shape of the message
// an approve or deny sends (see approvals.Template for the placeholders),
// and its approval policy (approval.go; see approvals.Policy).
type Approval struct {
	ApproveText string `toml:"approve_text"`
	DenyText    string `toml:"deny_text"`
	Data        string `toml:"data"`
	NoData      bool   `toml:"no_data"`

	// The policy: how many approvals are needed (0 and 1: one click),
	// the [[operator]] groups that may vote, whether one person counts
	// once (default true), "any" or "majority" for denials, whether an
	// approval must say why, how long a vote counts, and the rules
	// matched on the prompt's data part.
	Required      int            `toml:"required"`
	Approvers     []string       `toml:"approvers"`
	Distinct      *bool          `toml:"distinct"`
	Deny          string         `toml:"deny"`
	RequireReason bool           `toml:"require_reason"`
	VoteTTL       *Duration      `toml:"vote_ttl"`
	Rules         []ApprovalRule `toml:"rule"`
}

// Header is one [[agent.auth.headers]] entry: a header whose value comes
// from an environment variable or a file.
type Header struct {
	Name      string `toml:"name"`
	ValueEnv  string `toml:"value_env"`
	ValueFile string `toml:"value_file"`
	// Value exists only to refuse a literal secret.
	Value *string `toml:"value"`
}

// Duration is a time.Duration written in TOML as a string ("5s", "1m30s").
type Duration struct{ time.Duration }

// UnmarshalText parses a Go duration string. The error is a go-toml parser
// error so the decoder reports the line of the bad value.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return &unstable.ParserError{Highlight: b,
			Message: "invalid duration " + string(b) + `: write a string with a unit, like "5s" or "1m"`}
	}
	d.Duration = v
	return nil
}

// MarshalText writes the duration as a Go duration string.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// Default returns a Config holding every default and no agents.
func Default() *Config {
	state := StateDir()
	return &Config{
		Theme:           "auto",
		JournalPath:     filepath.Join(state, "journal.jsonl"),
		JournalMemory:   10_000,
		JournalSegment:  JournalSegment{Size: DefaultJournalSegmentSize},
		LogPath:         filepath.Join(state, "a2atop.log"),
		Bell:            true,
		SweepInterval:   Duration{5 * time.Second},
		FullResync:      Duration{time.Minute},
		MaxStreams:      32,
		MaxMessageBytes: 8 << 20,
		Scale: Scale{
			TerminalPerAgent: a2aclient.DefaultTerminalPerAgent,
			TerminalTotal:    model.DefaultTerminalTotal,
			MaxOpenTasks:     a2aclient.DefaultMaxOpenTasks,
			MaxAgentBytes:    model.DefaultMaxAgentBytes,
			MaxFleetBytes:    model.DefaultMaxFleetBytes,
			MaxStreamsTotal:  a2aclient.DefaultMaxStreamsTotal,
			ListByState:      true,
			ListConcurrency:  a2aclient.DefaultListConcurrency,
			MaxSweepBytes:    a2aclient.DefaultMaxSweepBytes,
			MaxSweepPages:    a2aclient.DefaultMaxSweepPages,
		},
		Notifications: "auto",
	}
}

// StateDir is where a2atop keeps its log and journal by default:
// $XDG_STATE_HOME/a2atop, else ~/.local/state/a2atop, else (no home) a
// directory of the user's own: $XDG_RUNTIME_DIR/a2atop, else
// os.TempDir()/a2atop-UID. Whichever it is, the journal and the log are
// opened only in a directory of the user's that others cannot write
// (package statefile refuses any other).
func StateDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "a2atop")
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		return filepath.Join(home, ".local", "state", "a2atop")
	}
	if d := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(d) {
		return filepath.Join(d, "a2atop")
	}
	if uid := os.Getuid(); uid >= 0 {
		return filepath.Join(os.TempDir(), "a2atop-"+strconv.Itoa(uid))
	}
	return filepath.Join(os.TempDir(), "a2atop-state") // no uids on this system
}

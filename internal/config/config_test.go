package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

// parse decodes doc and validates it, as Load does for a file.
func parse(t *testing.T, doc string) (*Config, error) {
	t.Helper()
	c, err := Parse([]byte(doc), "test.toml")
	if err != nil {
		return nil, err
	}
	return c, c.Validate()
}

func TestParseErrorsNameLineAndKey(t *testing.T) {
	tests := []struct {
		name, doc string
		line      int
		key       string
		msg       string
	}{
		{"typo at top", "theme = \"dark\"\nbel = true\n", 2, "bel", "unknown key"},
		{"typo in agent", "[[agent]]\nname = \"a\"\nurl = \"http://x\"\nhistroy_length = 3\n", 4, "agent.histroy_length", "unknown key"},
		{"typo in auth", "[[agent]]\nname = \"a\"\nurl = \"http://x\"\n[agent.auth]\ntoken_evn = \"X\"\n", 5, "agent.auth.token_evn", "unknown key"},
		{"wrong type", "[[agent]]\nname = \"a\"\nhistory_length = \"3\"\n", 3, "agent.history_length", "wrong type: a TOML string where a whole number is expected"},
		{"bool as string", "bell = \"yes\"\n", 1, "bell", "wrong type: a TOML string where true or false is expected"},
		{"list as string", "[[agent]]\nname = \"a\"\ntasks = \"t1\"\n", 3, "agent.tasks", `a list of strings, like ["a", "b"]`},
		{"agent as number", "agent = 3\n", 1, "agent", "where [[agent]] tables is expected"},
		{"duration without unit", "sweep_interval = 5\n", 1, "sweep_interval", "invalid duration"},
		{"bad duration string", "[[agent]]\nname = \"a\"\nsweep_interval = \"5x\"\n", 3, "agent.sweep_interval", "invalid duration"},
		{"syntax", "theme = \n", 1, "", "unexpected"},
		{"secret at agent level", "[[agent]]\nname = \"a\"\ntoken = \"s3cr3t\"\n", 3, "agent.token", "token_env or token_file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.doc), "test.toml")
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("Parse error = %v (%T), want *Error", err, err)
			}
			if ce.Line != tt.line || ce.Key != tt.key || !strings.Contains(ce.Msg, tt.msg) {
				t.Errorf("got line %d key %q msg %q; want line %d key %q msg containing %q",
					ce.Line, ce.Key, ce.Msg, tt.line, tt.key, tt.msg)
			}
			if !strings.HasPrefix(err.Error(), "test.toml:") {
				t.Errorf("error %q does not start with the file name", err)
			}
			if strings.Contains(err.Error(), "s3cr3t") {
				t.Errorf("error %q repeats the secret", err)
			}
		})
	}
}

// TestValidate has one case per rule Validate checks. Each error names
// the key and, like the decoder's errors, the line of the value at fault
// ("test.toml:4: agent \"a\".binding: ..."), or of the table that lacks it.
func TestValidate(t *testing.T) {
	const agent = "[[agent]]\nname = \"a\"\nurl = \"http://127.0.0.1:1\"\n" // lines 1-3
	tests := []struct {
		name, doc string
		line      int
		key, msg  string // want an error with this key and message part; "" = valid
	}{
		{"empty file", "", 0, "", ""},
		{"one agent", agent, 0, "", ""},
		{"full agent", agent + "card_path = \"/card.json\"\nbinding = \"rest\"\nprotocol = \"0.3\"\ntenant = \"t\"\n" +
			"sweep_interval = \"2s\"\nsubscribe = false\nhistory_length = 5\nread_only = true\nchain_metadata_key = \"k\"\ntasks = [\"t1\"]\n" +
			"[agent.auth]\ntoken_env = \"TOK\"\napi_key_header = \"X-Api-Key\"\nallowed_hosts = [\"other:443\"]\n" +
			"[[agent.auth.headers]]\nname = \"X-Team\"\nvalue_file = \"team\"\n", 0, "", ""},
		{"bad theme", "bell = true\ntheme = \"purple\"\n", 2, "theme", "not a theme"},
		{"bad theme, CRLF and comments", "bell = true\r\n# a comment\r\ntheme = \"purple\" # here\r\n", 3, "theme", "not a theme"},
		{"empty journal path", "\njournal_path = \"\"\n", 2, "journal_path", "must not be empty"},
		{"empty log path", "\n\nlog_path = \"\"\n", 3, "log_path", "must not be empty"},
		{"zero journal memory", "\njournal_memory = 0\n", 2, "journal_memory", "1 or more"},
		{"zero sweep", "# c\nsweep_interval = \"0s\"\n", 2, "sweep_interval", "positive"},
		{"negative resync", "bell = true\n\nfull_resync = \"-1m\"\n", 3, "full_resync", "positive"},
		{"negative max streams", "\nmax_streams = -1\n", 2, "max_streams", "0 (no streams)"},
		{"zero message bytes", "\nmax_message_bytes = 0\n", 2, "max_message_bytes", "positive"},
		{"no name", "[[agent]]\nurl = \"http://x\"\n", 1, "agent[1].name", "needs a name"},
		{"space in name", "[[agent]]\nurl = \"http://x\"\nname = \"a b\"\n", 3, "agent \"a b\".name", "space"},
		{"long name", "[[agent]]\nurl = \"http://x\"\nname = \"" + strings.Repeat("n", 65) + "\"\n", 3, "agent \"" + strings.Repeat("n", 65) + "\".name", "at most 64"},
		{"duplicate names", agent + "\n" + agent, 6, "agent \"a\"", "used twice"},
		{"no url", "\n[[agent]]\nname = \"a\"\n", 2, "agent \"a\".url", "needs a url"},
		{"relative url", "[[agent]]\nname = \"a\"\nurl = \"localhost:9000\"\n", 3, "agent \"a\".url", "absolute"},
		{"not a url", "[[agent]]\nname = \"a\"\nurl = \"http://x/%zz\"\n", 3, "agent \"a\".url", "not a URL"},
		{"ftp url", agent + "[[agent]]\nname = \"b\"\nurl = \"ftp://x\"\n", 6, "agent \"b\".url", "http"},
		{"no host", "[[agent]]\nname = \"a\"\nurl = \"http:///path\"\n", 3, "agent \"a\".url", "no host"},
		{"url with password", "[[agent]]\nname = \"a\"\nurl = \"http://u:p@x\"\n", 3, "agent \"a\".url", "password"},
		{"url with a key in its query", "[[agent]]\nname = \"a\"\nurl = \"http://x/?v=1&API_KEY=s3cr3t\"\n", 3, "agent \"a\".url", "query holds a secret (API_KEY=...)"},
		{"bad binding", agent + "binding = \"soap\"\n", 4, "agent \"a\".binding", "not a binding"},
		{"bad protocol", agent + "\nprotocol = \"2.0\"\n", 5, "agent \"a\".protocol", "not a protocol"},
		{"card path not a path", agent + "card_path = \"card.json\"\n", 4, "agent \"a\".card_path", "starting with"},
		{"zero agent sweep", agent + "sweep_interval = \"0s\"\n", 4, "agent \"a\".sweep_interval", "positive"},
		{"negative agent sweep", agent + "[[agent]]\nname = \"b\"\nurl = \"http://b\"\nsweep_interval = \"-5s\"\n", 7, "agent \"b\".sweep_interval", "positive"},
		{"negative history", agent + "history_length = -1\n", 4, "agent \"a\".history_length", "0"},
		{"empty task id", agent + "tasks = [\n  \"t1\",\n  \"\",\n]\n", 6, "agent \"a\".tasks[2]", "empty"},
		{"task id a2atop cannot send", agent + "tasks = [\"t1\", \"a\\u001b[2J\"]\n", 4, "agent \"a\".tasks[2]", "holds a control character (U+001B)"},
		{"unknown placeholder in text", agent + "[agent.approval]\napprove_text = \"ok\"\ndeny_text = \"no {{why}}\"\n", 6, "agent \"a\".approval.deny_text", "unknown placeholder"},
		{"bad approval data", agent + "[agent.approval]\napprove_text = \"ok\"\ndata = \"{not json\"\n", 6, "agent \"a\".approval.data", "not valid JSON"},
		{"literal token", agent + "[agent.auth]\ntoken_env = \"T\"\ntoken = \"s3cr3t\"\n", 6, "agent \"a\".auth.token", "token_env or token_file"},
		{"literal token, dotted", agent + "auth.token = \"s3cr3t\"\n", 4, "agent \"a\".auth.token", "token_env or token_file"},
		{"literal token, inline", agent + "auth = { token_env = \"T\", token = \"s3cr3t\" }\n", 4, "agent \"a\".auth.token", "token_env or token_file"},
		{"literal api key", agent + "[agent.auth]\n\napi_key = \"s3cr3t\"\n", 6, "agent \"a\".auth.api_key", "token_env or token_file"},
		{"literal header value", agent + "[[agent.auth.headers]]\nname = \"X\"\nvalue = \"s3cr3t\"\n", 6, "agent \"a\".auth.headers[1].value", "value_env or value_file"},
		{"token env and file", agent + "[agent.auth]\ntoken_env = \"A\"\ntoken_file = \"f\"\n", 4, "agent \"a\".auth", "not both"},
		{"api key header without token", agent + "[agent.auth]\napi_key_header = \"X-Key\"\n", 5, "agent \"a\".auth.api_key_header", "needs token_env"},
		{"bad api key header", agent + "[agent.auth]\ntoken_env = \"T\"\napi_key_header = \"X Key\"\n", 6, "agent \"a\".auth.api_key_header", "not a valid header"},
		{"bad header name", agent + "[[agent.auth.headers]]\nname = \"X-Ok\"\nvalue_env = \"K\"\n[[agent.auth.headers]]\nname = \"X Key\"\nvalue_env = \"K\"\n", 8, "agent \"a\".auth.headers[2].name", "not a valid header"},
		{"header twice", agent + "[agent.auth]\ntoken_env = \"T\"\n[[agent.auth.headers]]\nname = \"authorization\"\nvalue_env = \"K\"\n", 7, "agent \"a\".auth.headers[1].name", "twice"},
		{"header twice, inline", agent + "[agent.auth]\nheaders = [\n  { name = \"X\", value_env = \"K\" },\n  { name = \"x\", value_env = \"K\" },\n]\n", 7, "agent \"a\".auth.headers[2].name", "twice"},
		{"header without source", agent + "[[agent.auth.headers]]\nname = \"X\"\n", 4, "agent \"a\".auth.headers[1]", "exactly one"},
		{"allowed host without port", agent + "[agent.auth]\nallowed_hosts = [\"example.com\"]\n", 5, "agent \"a\".auth.allowed_hosts[1]", "host:port"},
		{"allowed host after a comment", agent + "[agent.auth]\nallowed_hosts = [ # the proxies\n  # the first\n  \"a\",\n]\n", 7, "agent \"a\".auth.allowed_hosts[1]", "host:port"},
		{"zero terminal per agent", "theme = \"auto\"\nterminal_per_agent = 0\n", 2, "terminal_per_agent", "positive"},
		{"negative open cap", "max_open_tasks = -1\n", 1, "max_open_tasks", "positive"},
		{"zero agent bytes", "\nmax_agent_bytes = 0\n", 2, "max_agent_bytes", "positive"},
		{"zero list concurrency", "list_concurrency = 0\n", 1, "list_concurrency", "positive"},
		{"zero fleet bytes", "max_fleet_bytes = 0\n", 1, "max_fleet_bytes", "positive"},
		{"zero terminal total", "terminal_total = 0\n", 1, "terminal_total", "positive"},
		{"negative streams total", "\n\nmax_streams_total = -3\n", 3, "max_streams_total", "positive"},
		{"list concurrency too high", "list_concurrency = 500\n", 1, "list_concurrency", "at most 64"},
		{"zero sweep bytes", "max_sweep_bytes = 0\n", 1, "max_sweep_bytes", "positive"},
		{"zero sweep pages", "max_sweep_pages = 0\n", 1, "max_sweep_pages", "positive"},
		{"scale keys", "terminal_per_agent = 50\nmax_open_tasks = 9\nlist_by_state = false\n", 0, "", ""},
		{"allowed host, second agent", agent + "[[agent]]\nname = \"b\"\nurl = \"http://b\"\n[agent.auth]\nallowed_hosts = [\n  \"ok:1\",\n  \":443\",\n]\n", 10, "agent \"b\".auth.allowed_hosts[2]", "host:port"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse(t, tt.doc)
			if tt.msg == "" && tt.key == "" {
				if err != nil {
					t.Fatalf("want valid, got %v", err)
				}
				return
			}
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("error = %v, want *Error", err)
			}
			if ce.Key != tt.key || !strings.Contains(ce.Msg, tt.msg) {
				t.Errorf("got key %q msg %q; want key %q msg containing %q", ce.Key, ce.Msg, tt.key, tt.msg)
			}
			if prefix := fmt.Sprintf("test.toml:%d: %s: ", tt.line, tt.key); ce.Line != tt.line || !strings.HasPrefix(err.Error(), prefix) {
				t.Errorf("error %q, want it to start %q", err, prefix)
			}
			if strings.Contains(err.Error(), "s3cr3t") {
				t.Errorf("error %q repeats the secret", err)
			}
		})
	}
}

// TestURLAgentErrorsNameNoLine: an agent from the command line is not in
// the file, so its error names neither the file nor a line.
func TestURLAgentErrorsNameNoLine(t *testing.T) {
	c, err := Parse([]byte("[[agent]]\nname = \"a\"\nurl = \"http://a\"\n"), "test.toml")
	if err != nil {
		t.Fatal(err)
	}
	c.Agents = append(c.Agents, Agent{Name: "a", URL: "http://b", FromArgs: true})
	err = c.Validate()
	var ce *Error
	if !errors.As(err, &ce) || ce.File != "" || ce.Line != 0 || !strings.Contains(ce.Msg, "used twice") {
		t.Errorf("Validate = %v (%+v), want a duplicate name with no file or line", err, ce)
	}
}

func TestDefaults(t *testing.T) {
	c, err := parse(t, "")
	if err != nil {
		t.Fatal(err)
	}
	if c.Theme != "auto" || c.SweepInterval.Duration != 5*time.Second || c.FullResync.Duration != time.Minute ||
		c.MaxStreams != 32 || c.MaxMessageBytes != 8<<20 || !c.Bell || c.ReadOnly {
		t.Errorf("defaults = %+v", c)
	}
	if !strings.HasSuffix(c.LogPath, filepath.Join("a2atop", "a2atop.log")) ||
		!strings.HasSuffix(c.JournalPath, filepath.Join("a2atop", "journal.jsonl")) {
		t.Errorf("paths = %q, %q", c.LogPath, c.JournalPath)
	}
}

func TestAddURLs(t *testing.T) {
	c, err := parse(t, "[[agent]]\nname = \"127.0.0.1:9001\"\nurl = \"http://127.0.0.1:9001/\"\n")
	if err != nil {
		t.Fatal(err)
	}
	err = c.AddURLs([]string{"http://127.0.0.1:9001", "http://127.0.0.1:9002", "https://127.0.0.1:9002/b"})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(c.AgentNames(), " ")
	if want := "127.0.0.1:9001 127.0.0.1:9002 127.0.0.1:9002#2"; got != want {
		t.Errorf("names = %q, want %q", got, want)
	}
	if err := c.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
	if err := c.AddURLs([]string{"localhost:9000"}); err == nil || !strings.Contains(err.Error(), "absolute") {
		t.Errorf("AddURLs(no scheme) = %v, want an error about absolute URLs", err)
	}
	for _, raw := range []string{"http://127.0.0.1:1/?token=s3cr3t", "ftp://u:s3cr3t@h/", "u:s3cr3t@h:1", "http://h/%zz?key=s3cr3t"} {
		if err := c.AddURLs([]string{raw}); err == nil || strings.Contains(err.Error(), "s3cr3t") {
			t.Errorf("AddURLs(%q) = %v, want an error without the secret", raw, err)
		}
	}
}

func TestLocateAndLoad(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	t.Setenv("HOME", dir)
	t.Setenv(EnvConfig, "")

	// No file anywhere: no agents, no error.
	c, err := Load("", []string{"http://127.0.0.1:1"})
	if err != nil || len(c.Agents) != 1 {
		t.Fatalf("Load without a file = %v, %v", c, err)
	}

	// An explicit file must exist.
	if _, err := Load(filepath.Join(dir, "missing.toml"), nil); err == nil || !strings.Contains(err.Error(), "missing.toml") {
		t.Errorf("Load(missing) = %v, want an error naming the file", err)
	}

	envFile := filepath.Join(dir, "env.toml")
	writeFile(t, envFile, "[[agent]]\nname = \"from-env\"\nurl = \"http://x\"\n")
	t.Setenv(EnvConfig, envFile)
	if c, err = Load("", nil); err != nil || c.Agents[0].Name != "from-env" || c.Path != envFile {
		t.Errorf("Load via $%s = %+v, %v", EnvConfig, c, err)
	}

	flagFile := filepath.Join(dir, "flag.toml")
	writeFile(t, flagFile, "[[agent]]\nname = \"from-flag\"\nurl = \"http://x\"\n")
	if c, err = Load(flagFile, nil); err != nil || c.Agents[0].Name != "from-flag" {
		t.Errorf("--config should win over $%s: %+v, %v", EnvConfig, c, err)
	}

	if p, required := Locate(""); p != envFile || !required {
		t.Errorf("Locate = %q %v", p, required)
	}
	t.Setenv(EnvConfig, "")
	if p, required := Locate(""); p != filepath.Join(dir, "a2atop", "config.toml") || required {
		t.Errorf("Locate default = %q %v", p, required)
	}
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestExample loads config.example.toml and checks that it sets, with a
// comment above it, every key the Config understands.
func TestExample(t *testing.T) {
	const path = "../../config.example.toml"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Parse(data, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(c.Agents) != 2 || c.Agents[0].Auth.TokenEnv == "" || len(c.Agents[0].Auth.Headers) != 2 {
		t.Errorf("example agents = %+v", c.Agents)
	}
	lines := strings.Split(string(data), "\n")
	for _, key := range keysOf(reflect.TypeFor[Config]()) {
		// a key, a commented-out key, or a table header naming it
		re := regexp.MustCompile(`^\s*(#\s*)?` + regexp.QuoteMeta(key) + `\s*=|^\[\[?([a-z.]+\.)?` + regexp.QuoteMeta(key) + `\]`)
		found := false
		for i, l := range lines {
			if re.MatchString(l) {
				found = true
				if i == 0 || !strings.HasPrefix(strings.TrimSpace(lines[i-1]), "#") {
					t.Errorf("key %q on line %d has no comment above it", key, i+1)
				}
				break
			}
		}
		if !found {
			t.Errorf("config.example.toml does not document key %q", key)
		}
	}
}

// keysOf lists the TOML keys of t and its nested structs, except the ones
// that exist only to refuse literal secrets.
func keysOf(t reflect.Type) []string {
	var keys []string
	for f := range t.Fields() {
		tag := f.Tag.Get("toml")
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			keys = append(keys, keysOf(f.Type)...) // its keys are the outer table's
			continue
		}
		if tag == "" || tag == "-" || tag == "token" || tag == "api_key" || tag == "value" || tag == "client_secret" {
			continue
		}
		keys = append(keys, tag)
		ft := f.Type
		for ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct && ft != reflect.TypeFor[Duration]() {
			keys = append(keys, keysOf(ft)...)
		}
	}
	return keys
}

// TestStateDirWithoutHome: with no home, the default state directory is
// one of the user's own (the per-user runtime directory, else a name
// with the uid in the temporary directory), never one shared name that
// another user could create first.
func TestStateDirWithoutHome(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", "")
	t.Setenv("TMPDIR", tmp)
	t.Setenv("XDG_RUNTIME_DIR", "/run/user/4242")
	if got, want := StateDir(), "/run/user/4242/a2atop"; got != want {
		t.Errorf("StateDir with $XDG_RUNTIME_DIR = %q, want %q", got, want)
	}
	t.Setenv("XDG_RUNTIME_DIR", "")
	want := filepath.Join(tmp, fmt.Sprintf("a2atop-%d", os.Getuid()))
	if got := StateDir(); got != want {
		t.Errorf("StateDir without $XDG_RUNTIME_DIR = %q, want %q", got, want)
	}
	if c := Default(); filepath.Dir(c.JournalPath) != want || filepath.Dir(c.LogPath) != want {
		t.Errorf("default paths %q, %q are not in %q", c.JournalPath, c.LogPath, want)
	}
	t.Setenv("XDG_STATE_HOME", "/state")
	if got := StateDir(); got != "/state/a2atop" {
		t.Errorf("StateDir with $XDG_STATE_HOME = %q", got)
	}
}

// The scale keys reach the watchers and the fleet.
func TestScaleKeys(t *testing.T) {
	c, err := parse(t, "terminal_per_agent = 50\nmax_open_tasks = 9\nmax_agent_bytes = 4096\nlist_by_state = false\n"+
		"max_fleet_bytes = 8192\nmax_streams_total = 12\n"+
		"list_concurrency = 2\nmax_sweep_bytes = 1000\nmax_sweep_pages = 7\n[[agent]]\nname = \"a\"\nurl = \"http://a\"\n")
	if err != nil {
		t.Fatal(err)
	}
	opts, err := c.AgentOptions()
	if err != nil {
		t.Fatal(err)
	}
	o := opts[0]
	if o.TerminalPerAgent != 50 || o.MaxOpenTasks != 9 || !o.ListAll || o.ListConcurrency != 2 || o.MaxSweepBytes != 1000 || o.MaxSweepPages != 7 {
		t.Errorf("agent options = %+v", o)
	}
	if f := c.FleetOptions(); f.MaxTerminalPerAgent != 50 || f.MaxAgentBytes != 4096 || f.MaxFleetBytes != 8192 || c.MaxStreamsTotal != 12 {
		t.Errorf("fleet options = %+v", f)
	}
	d := Default()
	if d.TerminalPerAgent != 1000 || !d.ListByState || d.MaxAgentBytes != 32<<20 || d.MaxFleetBytes != 32<<20 || d.MaxStreamsTotal != 128 {
		t.Errorf("defaults = %+v", d.Scale)
	}
}

// A fleet keeps at most terminal_total finished tasks: each agent an
// even share, at most terminal_per_agent, and the watchers and the fleet
// are told the same number.
func TestTerminalTotalIsShared(t *testing.T) {
	for _, c := range []struct {
		agents, perAgent, total, want int
	}{
		{1, 1000, 10000, 1000},
		{5, 1000, 10000, 1000},
		{50, 1000, 10000, 200},
		{50, 150, 10000, 150},
		{500, 1000, 10000, 100}, // never fewer than 100
	} {
		var b strings.Builder
		fmt.Fprintf(&b, "terminal_per_agent = %d\nterminal_total = %d\n", c.perAgent, c.total)
		for i := range c.agents {
			fmt.Fprintf(&b, "[[agent]]\nname = \"a%d\"\nurl = \"http://a%d\"\n", i, i)
		}
		cfg, err := parse(t, b.String())
		if err != nil {
			t.Fatal(err)
		}
		opts, err := cfg.AgentOptions()
		if err != nil {
			t.Fatal(err)
		}
		if opts[0].TerminalPerAgent != c.want || cfg.FleetOptions().MaxTerminalPerAgent != c.want {
			t.Errorf("%d agents, %d per agent, %d in all: the watchers keep %d, the fleet %d; want %d",
				c.agents, c.perAgent, c.total, opts[0].TerminalPerAgent, cfg.FleetOptions().MaxTerminalPerAgent, c.want)
		}
	}
}

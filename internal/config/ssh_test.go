package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const testKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIqdSucFOC065sYAuOM8rmWWXYSSBnFbJXVjHrBwXlf6 alice@laptop"

// TestSSHKeysValidate: a bad key line, a bad SSH setting and a bad
// operator theme are errors at their file, line and key.
func TestSSHKeysValidate(t *testing.T) {
	const op = "[[operator]]\nname = \"alice\"\ntoken_env = \"T\"\nroles = { \"*\" = [\"watch\"] }\n"
	tests := []struct {
		name, doc string
		line      int
		key, msg  string
	}{
		{"bad key", op + "ssh_authorized_keys = [\n  \"" + testKey + "\",\n  \"ssh-ed25519 AAAA-not-base64 x\",\n]\n", 7, "operator[1].ssh_authorized_keys[2]", "not an OpenSSH public key line"},
		{"two keys in one", op + "ssh_authorized_keys = [\"" + testKey + "\\n" + testKey + "\"]\n", 5, "operator[1].ssh_authorized_keys[1]", "one key per string"},
		{"idle", "ssh_idle_timeout = \"-1s\"\n", 1, "ssh_idle_timeout", "positive duration"},
		{"sessions", "ssh_max_sessions = -2\n", 1, "ssh_max_sessions", "1 or more"},
		{"theme", op + "theme = \"sepia\"\n", 5, "operator[1].theme", `"sepia" is not a theme`},
		{"key binding", op + "[operator.keys.tasks]\ncancel = 7\n", 6, "operator[1].keys.tasks.cancel", "quoted key"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parse(t, tc.doc)
			ce, ok := err.(*Error)
			if !ok {
				t.Fatalf("err = %v (%T), want *Error", err, err)
			}
			if ce.File != "test.toml" || ce.Line != tc.line || ce.Key != tc.key || !strings.Contains(ce.Msg, tc.msg) {
				t.Errorf("got %s line %d key %q msg %q; want line %d key %q msg containing %q", ce.File, ce.Line, ce.Key, ce.Msg, tc.line, tc.key, tc.msg)
			}
		})
	}
}

// TestSSHKeysFile reads ssh_authorized_keys_file as OpenSSH writes it
// (comments, blank lines); a line that is no key is an error naming the
// config's line and key and the file's line; options are refused.
func TestSSHKeysFile(t *testing.T) {
	dir := t.TempDir()
	keys := filepath.Join(dir, "alice.keys")
	doc := "[[operator]]\nname = \"alice\"\ntoken_env = \"T\"\nroles = { \"*\" = [\"watch\"] }\nssh_authorized_keys_file = \"alice.keys\"\n"
	cfgPath := filepath.Join(dir, "hub.toml")
	write := func(name, s string) {
		t.Helper()
		if err := os.WriteFile(name, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(cfgPath, doc)
	load := func() (map[string]int, error) {
		b, _ := os.ReadFile(cfgPath)
		c, err := Parse(b, cfgPath)
		if err == nil {
			err = c.Validate()
		}
		if err != nil {
			return nil, err
		}
		k, err := c.SSHKeys()
		n := map[string]int{}
		for op, ks := range k {
			n[op] = len(ks)
		}
		return n, err
	}
	write(keys, "# alice\n\n"+testKey+"\n")
	if n, err := load(); err != nil || n["alice"] != 1 {
		t.Fatalf("keys %v, %v; want alice's one", n, err)
	}
	write(keys, testKey+"\nnot a key\n")
	_, err := load()
	if ce, ok := err.(*Error); !ok || ce.Line != 5 || ce.Key != "operator[1].ssh_authorized_keys_file" || !strings.Contains(ce.Msg, "alice.keys line 2") {
		t.Fatalf("a bad line: %v", err)
	}
	write(keys, "command=\"/bin/sh\" "+testKey+"\n")
	if _, err := load(); err == nil || !strings.Contains(err.Error(), "options") {
		t.Fatalf("options: %v", err)
	}
}

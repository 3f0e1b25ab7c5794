package cli

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/crypto/ssh"

	"a2atop/hub"
	"a2atop/internal/config"
)

// TestSSHSessionsAreTheirOperator: the entry an SSH session's dashboard
// is attached to the hub by is its operator in all but the token: the
// same roles and the same groups, so an approver's vote over SSH counts
// under an approval policy as it does from a2atop --hub (its groups were
// left out: "you are not in a group that may vote on this agent").
func TestSSHSessionsAreTheirOperator(t *testing.T) {
	dir := isolate(t)
	signer := newSigner(t)
	tf := filepath.Join(dir, "bob.token")
	if err := os.WriteFile(tf, []byte("tok-bob-5e4d3c2b1a09f8e7\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(dir, "hub.toml")
	text := "journal_path = \"" + filepath.Join(dir, "j.jsonl") + "\"\n" +
		"[[agent]]\nname = \"deployer\"\nurl = \"http://127.0.0.1:1\"\n[agent.approval]\nrequired = 2\napprovers = [\"release\"]\n" +
		"[[operator]]\nname = \"bob\"\ntoken_file = \"" + tf + "\"\nroles = { \"*\" = [\"watch\", \"approve\"] }\ngroups = [\"release\"]\n" +
		"ssh_authorized_keys = [\"" + string(ssh.MarshalAuthorizedKey(signer.PublicKey())[:len(ssh.MarshalAuthorizedKey(signer.PublicKey()))-1]) + " bob@laptop\"]\n"
	if err := os.WriteFile(cfgPath, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(cfgPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := &session{options: &options{st: Streams{Out: io.Discard, Err: io.Discard}}, cfg: cfg}
	bob := hub.Operator{Name: "bob", TokenHash: hub.HashToken("tok-bob-5e4d3c2b1a09f8e7"),
		Roles: map[string][]hub.Role{hub.AllAgents: {hub.RoleWatch, hub.RoleApprove}}, Groups: []string{"release"}}
	ops, acc, err := s.sshOperators([]hub.Operator{bob})
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != 2 || acc == nil || acc.tokens["bob"] == "" {
		t.Fatalf("operators %+v, access %+v: want bob and bob's SSH sessions", ops, acc)
	}
	sess := ops[1]
	if sess.Name != "bob" || sess.TokenHash != hub.HashToken(acc.tokens["bob"]) || sess.TokenHash == bob.TokenHash {
		t.Errorf("the sessions' entry: %+v", sess)
	}
	if !slices.Equal(sess.Groups, bob.Groups) || len(sess.Roles[hub.AllAgents]) != 2 {
		t.Errorf("the sessions' entry has roles %v and groups %v; want bob's, %v and %v", sess.Roles, sess.Groups, bob.Roles, bob.Groups)
	}
}

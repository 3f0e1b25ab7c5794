package cli

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	gossh "golang.org/x/crypto/ssh"
)

// demoSSHKey makes an operator's SSH key for the demo and keeps its
// private part in dir/NAME_ssh_key (0600), where the printed ssh line
// reads it; it returns the public key's authorized_keys line.
func demoSSHKey(dir, name string) (string, error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return "", err
	}
	block, err := gossh.MarshalPrivateKey(priv, "a2atop demo "+name)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, name+"_ssh_key"), pem.EncodeToMemory(block), 0o600); err != nil {
		return "", fmt.Errorf("writing the demo SSH key of %s: %w", name, err)
	}
	sp, err := gossh.NewPublicKey(pub)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(gossh.MarshalAuthorizedKey(sp))) + " " + name + "@a2atop-demo", nil
}

// demoSSHLine writes the demo hub's host key into dir/known_hosts and
// prints the ssh command that opens bob's dashboard over SSH with his
// demo key, checked against that known_hosts.
func (s *session) demoSSHLine(dir, addr, hostKey string) {
	if addr == "" {
		return
	}
	host, port, _ := net.SplitHostPort(addr)
	known := filepath.Join(dir, "known_hosts")
	if err := os.WriteFile(known, []byte(fmt.Sprintf("[%s]:%s %s\n", host, port, hostKey)), 0o600); err != nil {
		s.log.Warn("demo: the SSH known_hosts not written", logKeyErr, err)
		return
	}
	fmt.Fprintf(s.st.Out, "Or open bob's over SSH, from any terminal, with nothing installed (the demo's keys and known_hosts are in %s):\n\n"+
		"  ssh -i %s -o IdentitiesOnly=yes -o UserKnownHostsFile=%s -t -p %s %s inbox\n\n",
		dir, filepath.Join(dir, "bob_ssh_key"), known, port, host)
}

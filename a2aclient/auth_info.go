package a2aclient

import (
	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/a2aclient/credential"
	"a2atop/model"
)

// authInfo fills the agent's credential in words into info; with none
// configured, what the card's requirements would need.
func (c *conn) authInfo(info *model.AgentInfo, card *a2a.AgentCard) {
	switch {
	case c.auth != nil:
		info.Auth, info.AuthMissing = c.auth.Status()
		info.SignIn = c.auth.SignIn()
	case c.opts.Auth.Type == AuthMTLS || c.opts.Auth.ClientCertificate:
		info.Auth = "client certificate"
	case len(c.opts.Headers) > 0:
		info.Auth = "secret headers"
	case len(card.SecurityRequirements) > 0:
		info.Auth, info.AuthMissing = "none", credential.Missing(card)
	}
	if c.auth != nil && c.opts.Auth.ClientCertificate {
		info.Auth += " + client certificate"
	}
}

package a2aclient

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	sdk "github.com/a2aproject/a2a-go/v2/a2aclient"

	"a2atop/a2aclient/credential"
	"a2atop/a2aclient/edge"
	"a2atop/model"
)

// extendedCard fetches the extended card of an agent whose card says it
// has one, once a2atop has credentials for it, and writes in info what it
// adds: skills and interfaces the public card does not list. With keys
// pinned its signature is checked too, over the card as decoded (what
// a2atop would act on); with require_signed_card one that does not
// verify is not used. A failure is logged and shown as such; it does not
// stop the watcher.
func (w *watcher) extendedCard(ctx context.Context, cl *sdk.Client, card *a2a.AgentCard, info *model.AgentInfo) {
	if !card.Capabilities.ExtendedAgentCard || !w.c.secretsConfigured() {
		return
	}
	cctx, cancel := context.WithTimeout(credential.Idempotent(ctx), w.o.CallTimeout)
	defer cancel()
	cctx, pr := edge.WithProbe(cctx)
	ext, err := cl.GetExtendedAgentCard(cctx, &a2a.GetExtendedAgentCardRequest{Tenant: w.o.Tenant})
	err = w.wrap("GetExtendedAgentCard", "", pr, err)
	if err != nil {
		w.log.Warn("extended card", "err", Describe(err))
		info.Extended = "not read: " + Describe(err)
		return
	}
	adds := cardAdds(card, ext)
	if w.c.trust.pinned() {
		switch sig := w.c.trust.check(ctx, extendedJSON(ext), ext); {
		case sig.state == sigValid:
		case w.o.Auth.CardKeys.Require:
			w.log.Warn("extended card not used", "signature", sig.words())
			info.Extended = "not used: the extended card's signature does not verify (" + sig.words() + ") and require_signed_card is set"
			return
		default:
			adds += " (" + sig.words() + ")"
		}
	}
	info.Extended = adds
}

// extendedJSON is the extended card in its JSON form, which its
// signature covers. The SDK hands the card over decoded (from JSON or
// protobuf); its signature is checked over that, so what verifies is
// what a2atop reads.
func extendedJSON(ext *a2a.AgentCard) []byte {
	b, err := json.Marshal(ext)
	if err != nil {
		return nil // check says: not a JSON object
	}
	return b
}

// cardAdds says what ext adds to card: "+2 skills: deploy, rollback; +1 interface".
func cardAdds(card, ext *a2a.AgentCard) string {
	var skills []string
	for _, s := range ext.Skills {
		if !slices.ContainsFunc(card.Skills, func(p a2a.AgentSkill) bool { return p.ID == s.ID }) {
			skills = append(skills, cmp.Or(s.Name, s.ID))
		}
	}
	ifaces := 0
	for _, i := range ext.SupportedInterfaces {
		if i != nil && !slices.ContainsFunc(card.SupportedInterfaces, func(p *a2a.AgentInterface) bool { return p != nil && *p == *i }) {
			ifaces++
		}
	}
	var parts []string
	if len(skills) > 0 {
		parts = append(parts, "+"+plural(len(skills), "skill")+": "+strings.Join(skills, ", "))
	}
	if ifaces > 0 {
		parts = append(parts, "+"+plural(ifaces, "interface"))
	}
	if len(parts) == 0 {
		return "nothing the public card lacks"
	}
	return strings.Join(parts, "; ")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

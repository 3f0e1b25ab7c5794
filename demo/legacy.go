package demo

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"regexp"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// EmailQuestion is legacy-intake's input-required question.
const EmailQuestion = "What email address should the new account use?"

// legacyIntake signs people up. It speaks A2A 0.3 JSON-RPC only: its card
// is a 0.3 card and its wire uses "kind" and lowercase states.
type legacyIntake struct {
	cancelByRequest
	t Timings
}

func newLegacyIntake(e *env) http.Handler {
	card := newCard(LegacyIntake, "Signs people up for the beta (an A2A 0.3 agent).",
		e.urls[LegacyIntake], a2a.TransportProtocolJSONRPC, a2av0.Version, false,
		a2a.AgentSkill{ID: "signup", Name: "Sign-up", Description: "Creates a beta account; asks for the email address.",
			Tags: []string{"intake"}, Examples: []string{"sign up Ada Lovelace for the beta"}})
	return mount(e, agentParts{exec: &legacyIntake{t: e.t}, store: newStore(), card: card, inactivity: busyInactivity})
}

// emailRE is deliberately loose: something@something.tld.
var emailRE = regexp.MustCompile(`[^\s@<>"',;]+@[^\s@<>"',;]+\.[A-Za-z]{2,}`)

// Execute implements a2asrv.AgentExecutor.
func (l *legacyIntake) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield yieldFn) {
		email := dataField(ec.Message, "email")
		if email == "" {
			email = emailRE.FindString(textOf(ec.Message))
		}
		if ec.StoredTask == nil {
			if !yield(submitted(ec), nil) ||
				!yield(status(ec, a2a.TaskStateWorking, "reading the sign-up request"), nil) || !pause(ctx, l.t.Step) {
				return
			}
			if email == "" {
				yield(status(ec, a2a.TaskStateInputRequired, EmailQuestion), nil)
				return
			}
		} else if email == "" {
			yield(status(ec, a2a.TaskStateInputRequired, "That does not look like an email address. "+EmailQuestion), nil)
			return
		}
		if !yield(status(ec, a2a.TaskStateWorking, "creating the account for "+email), nil) || !pause(ctx, l.t.Step) {
			return
		}
		p := a2a.NewDataPart(map[string]any{"email": email, "plan": "beta", "status": "active"})
		p.MediaType = "application/json"
		if !yield(artifact(ec, "account", "account.json", p), nil) {
			return
		}
		yield(status(ec, a2a.TaskStateCompleted, fmt.Sprintf("Signed up %s for the beta.", email)), nil)
	}
}

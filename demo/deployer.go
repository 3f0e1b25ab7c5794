package demo

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"
)

// ProductionPolicy is the deployer's answer to a production deploy.
const ProductionPolicy = "Production deploys are outside this agent's policy. Use the release train."

// deployer deploys a commit. Production is rejected from SUBMITTED; staging
// waits in AUTH_REQUIRED for a decision by message or, when the request
// names a change ticket (CHG-1234), for the ticket to clear out of band.
type deployer struct {
	cancelByRequest
	e     *env
	store taskstore.Store
	gates *gates
}

func newDeployer(e *env) http.Handler {
	card := newCard(Deployer, "Deploys a commit to staging after approval; production goes through the release train.",
		e.urls[Deployer], a2a.TransportProtocolJSONRPC, a2a.Version, true,
		a2a.AgentSkill{ID: "deploy", Name: "Deploy", Description: "Deploys a commit to staging once approved.",
			Tags: []string{"deploy"}, Examples: []string{"deploy 9f3c2e1 to staging", "deploy 9f3c2e1 to staging with change ticket CHG-2041"}})
	d := &deployer{e: e, store: newStore(), gates: newGates()}
	return mount(e, agentParts{exec: d, store: d.store, card: card, inactivity: e.waitingInactivity(),
		extra: []a2asrv.CallInterceptor{&handoff{agent: Deployer, gates: d.gates, store: d.store}}})
}

var ticketRE = regexp.MustCompile(`(?i)\bCHG-\d+\b`)

// deployRequest is what a deploy message asks for.
type deployRequest struct{ commit, env, ticket string }

func parseDeploy(m *a2a.Message) deployRequest {
	text := strings.ToLower(textOf(m))
	r := deployRequest{commit: commitIn(m), ticket: strings.ToUpper(ticketRE.FindString(text))}
	switch env := strings.ToLower(dataField(m, "environment")); {
	case env != "":
		r.env = env
	case strings.Contains(text, "prod"):
		r.env = "production"
	case strings.Contains(text, "staging"):
		r.env = "staging"
	}
	if r.env == "prod" {
		r.env = "production"
	}
	return r
}

// Execute implements a2asrv.AgentExecutor.
func (d *deployer) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield yieldFn) {
		if ec.StoredTask != nil {
			yield(status(ec, a2a.TaskStateRejected, "This deploy is no longer waiting for input; start a new deploy."), nil)
			return
		}
		if !yield(submitted(ec), nil) {
			return
		}
		r := parseDeploy(ec.Message)
		switch {
		case r.env == "production":
			yield(status(ec, a2a.TaskStateRejected, ProductionPolicy), nil)
			return
		case r.env != "staging":
			yield(status(ec, a2a.TaskStateRejected, `Say where to deploy, e.g. "deploy 9f3c2e1 to staging".`), nil)
			return
		case r.commit == "":
			yield(status(ec, a2a.TaskStateRejected, `Name the commit to deploy, e.g. "deploy 9f3c2e1 to staging".`), nil)
			return
		}
		if !yield(status(ec, a2a.TaskStateWorking, fmt.Sprintf("preparing deploy of %s to staging", r.commit)), nil) ||
			!pause(ctx, d.e.t.Step) {
			return
		}
		dec, ok := d.awaitDecision(ctx, ec, r, yield)
		if !ok {
			return
		}
		d.finish(ctx, ec, r, dec, yield)
	}
}

// awaitDecision puts the task in AUTH_REQUIRED and waits for a decision: a
// message (through handoff), the change ticket, expiry, cancel or shutdown.
func (d *deployer) awaitDecision(ctx context.Context, ec *a2asrv.ExecutorContext, r deployRequest, yield yieldFn) (decision, bool) {
	question := map[string]any{"action": "deploy", "commit": r.commit, "environment": "staging",
		"reply": map[string]any{"decision": "approve | deny", "reason": "string"}}
	if r.ticket != "" {
		question["changeTicket"] = r.ticket
	}
	g := d.gates.wait(ec.TaskID, ec.ContextID)
	defer d.gates.remove(ec.TaskID)
	if !yield(status(ec, a2a.TaskStateAuthRequired, fmt.Sprintf("approve deploy of %s to staging?", r.commit), question), nil) {
		return decision{}, false
	}
	if r.ticket != "" {
		ticket := time.AfterFunc(d.e.t.OutOfBand, func() {
			d.gates.deliver(ec.TaskID, decision{approve: true, by: "change-management",
				reason: fmt.Sprintf("change ticket %s approved", r.ticket)})
		})
		defer ticket.Stop()
	}
	expiry := time.NewTimer(d.e.t.ApprovalExpiry)
	defer expiry.Stop()
	select {
	case dec := <-g.decisions:
		return dec, true
	case <-ctx.Done(): // canceled: the SDK already stored CANCELED
		return decision{}, false
	case <-d.e.life.Done():
		yield(status(ec, a2a.TaskStateFailed, "The deployer shut down before a decision arrived; start a new deploy."), nil)
	case <-expiry.C:
		yield(status(ec, a2a.TaskStateFailed, fmt.Sprintf("No decision within %s; start a new deploy.", d.e.t.ApprovalExpiry)), nil)
	}
	return decision{}, false
}

func (d *deployer) finish(ctx context.Context, ec *a2asrv.ExecutorContext, r deployRequest, dec decision, yield yieldFn) {
	if !dec.approve {
		text := fmt.Sprintf("Deploy of %s to staging denied by %s", r.commit, dec.who())
		if dec.reason != "" {
			text += ": " + dec.reason
		}
		yield(recordDecision(ctx, d.store, ec, dec, a2a.TaskStateFailed, text), nil)
		return
	}
	text := fmt.Sprintf("Approved by %s; rolling out %s to staging", dec.who(), r.commit)
	if dec.reason != "" {
		text = fmt.Sprintf("Approved by %s (%s); rolling out %s to staging", dec.who(), dec.reason, r.commit)
	}
	if !yield(recordDecision(ctx, d.store, ec, dec, a2a.TaskStateWorking, text), nil) || !pause(ctx, 2*d.e.t.Step) {
		return
	}
	result := map[string]any{"commit": r.commit, "environment": "staging", "approvedBy": dec.who(),
		"url": "https://staging.example.test/releases/" + r.commit}
	p := a2a.NewDataPart(result)
	p.MediaType = "application/json"
	if !yield(artifact(ec, "deploy", "deploy.json", p), nil) {
		return
	}
	yield(status(ec, a2a.TaskStateCompleted, fmt.Sprintf("Deployed %s to staging.", r.commit)), nil)
}

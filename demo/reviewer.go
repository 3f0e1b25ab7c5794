package demo

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"regexp"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// BranchQuestion is the code-reviewer's INPUT_REQUIRED question.
const BranchQuestion = "Which branch should I compare against?"

// codeReviewer reviews a change; it always asks which branch to compare
// against and completes when a reply on the same task names one.
type codeReviewer struct {
	cancelByRequest
	t Timings
}

func newCodeReviewer(e *env) http.Handler {
	card := newCard(CodeReviewer, "Reviews a change against a base branch it asks you for.",
		e.urls[CodeReviewer], a2a.TransportProtocolHTTPJSON, a2a.Version, true,
		a2a.AgentSkill{ID: "review", Name: "Code review", Description: "Reviews a pull request.",
			Tags: []string{"review"}, Examples: []string{"review PR #42"}})
	return mount(e, agentParts{exec: &codeReviewer{t: e.t}, store: newStore(), card: card, inactivity: busyInactivity})
}

// Execute implements a2asrv.AgentExecutor.
func (r *codeReviewer) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield yieldFn) {
		if ec.StoredTask == nil {
			if !yield(submitted(ec), nil) ||
				!yield(status(ec, a2a.TaskStateWorking, "reading the change"), nil) || !pause(ctx, r.t.Step) {
				return
			}
			yield(status(ec, a2a.TaskStateInputRequired, BranchQuestion, map[string]any{"branch": "string"}), nil)
			return
		}
		branch := branchIn(ec.Message)
		if branch == "" {
			yield(status(ec, a2a.TaskStateInputRequired, "I need a branch name, e.g. main. "+BranchQuestion), nil)
			return
		}
		change := changeName(ec.StoredTask)
		if !yield(status(ec, a2a.TaskStateWorking, fmt.Sprintf("comparing %s against %s", change, branch)), nil) ||
			!pause(ctx, 2*r.t.Step) {
			return
		}
		review := fmt.Sprintf("# Review of %s against %s\n\n"+
			"* checkout/totals.go:88 rounds before summing; sum cents, then round.\n"+
			"* checkout/totals_test.go: TestCheckoutTotals needs a case for a zero-price line.\n\n"+
			"Verdict: changes requested (2 comments).\n", change, branch)
		p := a2a.NewTextPart(review)
		p.MediaType = "text/markdown"
		if !yield(artifact(ec, "review", "review.md", p), nil) {
			return
		}
		yield(status(ec, a2a.TaskStateCompleted, fmt.Sprintf("Reviewed %s against %s: 2 comments, changes requested.", change, branch)), nil)
	}
}

var branchRE = regexp.MustCompile(`[A-Za-z0-9][A-Za-z0-9._/-]*`)

// branchIn reads a branch from a data part {"branch": ...} or the reply
// text: the last word of it, so "compare against main" gives "main".
func branchIn(m *a2a.Message) string {
	if b := dataField(m, "branch"); b != "" {
		return b
	}
	words := branchRE.FindAllString(textOf(m), -1)
	if len(words) == 0 {
		return ""
	}
	return words[len(words)-1]
}

var changeRE = regexp.MustCompile(`(?i)(PR\s*#?\d+|#\d+)`)

// changeName names the change under review from the task's first message.
func changeName(t *a2a.Task) string {
	if t != nil && len(t.History) > 0 {
		if c := changeRE.FindString(textOf(t.History[0])); c != "" {
			if strings.HasPrefix(strings.ToLower(c), "pr") {
				c = "PR" + c[2:]
			}
			return c
		}
	}
	return "the change"
}

package hub_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"a2atop/hub"
)

// TestRunningLineCountsOperatorsOnce: "hub running" counts the people
// the hub serves; an operator's second entry (the token of its SSH
// sessions, `a2atop serve --ssh-listen`) is the same person and is not
// counted again.
func TestRunningLineCountsOperatorsOnce(t *testing.T) {
	fx := newFixture(t, func(o *hub.Options) {
		for _, op := range o.Operators {
			if op.Name == "alice" {
				session := op
				session.TokenHash = hub.HashToken("tok-alice-ssh-sessions-5e4d3c2b")
				o.Operators = append(o.Operators, session)
				break
			}
		}
	})
	var line string
	for deadline := time.Now().Add(10 * time.Second); line == "" && time.Now().Before(deadline); {
		for _, l := range strings.Split(fx.log.String(), "\n") {
			if strings.Contains(l, "hub running") {
				line = l
			}
		}
		if line == "" {
			time.Sleep(10 * time.Millisecond)
		}
	}
	if want := "operators=" + strconv.Itoa(len(tokens)) + " "; !strings.Contains(line, want) {
		t.Fatalf("the running line does not say %q:\n%s", want, line)
	}
}

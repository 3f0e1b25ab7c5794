package inbox

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"

	"a2atop/approvals"
	"a2atop/ui/internal/uitest"
)

// TestGoldenJournalChainBroken: a journal two of whose lines were
// swapped on disk shows, under its title, where its hash chain breaks
// and what was done (the clean journal's golden shows "chain verified
// up to …").
func TestGoldenJournalChainBroken(t *testing.T) {
	for _, sz := range goldenSizes {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			fx := newFixture(t, false)
			seedJournal(t, fx)
			b, err := os.ReadFile(fx.svc.Path())
			if err != nil {
				t.Fatal(err)
			}
			lines := bytes.SplitAfter(b, []byte("\n"))
			lines[1], lines[2] = lines[2], lines[1]
			if err := os.WriteFile(fx.svc.Path(), bytes.Join(lines, nil), 0o600); err != nil {
				t.Fatal(err)
			}
			svc, err := approvals.Open(approvals.Options{JournalPath: fx.svc.Path(), ReadOnly: true, Now: fx.clk.Now})
			if err != nil {
				t.Fatal(err)
			}
			defer svc.Close()
			h := &harness{c: NewJournal(fx.ctx, svc, Options{}), clk: fx.clk}
			tm := teatest.NewTestModel(t, h, teatest.WithInitialTermSize(sz[0], sz[1]))
			out := uitest.Frame(t, tm, "chain broken at line 2", sz[0], sz[1], false)
			golden.RequireEqual(t, []byte(out))
		})
	}
}

// TestJournalChainLine: what the journal's chain line says for each
// state a walk can end in.
func TestJournalChainLine(t *testing.T) {
	at := t0.Add(-time.Minute)
	cut := approvals.ChainBreak{Line: 9, Kind: approvals.BreakCut, Words: "the journal ends in a line without its newline"}
	accepted := approvals.ChainBreak{Line: 3, Kind: approvals.BreakRemoved, Words: "1 record(s) removed", AcceptedLine: 8, AcceptedBy: "a2atop serve"}
	for _, c := range []struct {
		name string
		st   approvals.ChainStatus
		want string
	}{
		{"empty", approvals.ChainStatus{}, ""},
		{"older journal only", approvals.ChainStatus{Legacy: 4, Lines: 4}, ""},
		{"clean", approvals.ChainStatus{Records: 6, Start: 1, HeadAt: at}, "chain verified up to 11-29 19:59:00Z (6 records)"},
		{"signed, after older records", approvals.ChainStatus{Records: 6, Start: 5, HeadAt: at, Checkpoints: 1, SignedLine: 10},
			"chain verified up to 11-29 19:59:00Z (6 records, signed to line 10) · lines 1–4 were written before the chain"},
		{"a hub's lines", approvals.ChainStatus{Records: 3, Start: 7, HeadAt: at, Partial: true},
			"chain verified up to 11-29 19:59:00Z (3 records the hub sent; the hub checks the whole)"},
		{"a break accepted", approvals.ChainStatus{Records: 9, Start: 1, HeadAt: at, Breaks: []approvals.ChainBreak{accepted}},
			"chain verified up to 11-29 19:59:00Z (9 records) · 1 break(s) accepted"},
		{"a shared record", approvals.ChainStatus{Shared: "the team's record … is not hash-chained"},
			"not hash-chained: the team's record in NATS JetStream holds the lines in its stream's order · a2atop journal verify"},
		{"a cut last line", approvals.ChainStatus{Records: 8, Start: 1, HeadAt: at, Breaks: []approvals.ChainBreak{cut}},
			"chain broken at line 9 (cut) · a2atop journal verify · the journal ends in a line without its newline"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fx := newFixture(t, false)
			j := NewJournal(fx.ctx, fx.svc, Options{})
			j.SetSize(200, 20)
			j.chain = c.st
			if got := j.chainLine(); !strings.Contains(got, c.want) || (c.want == "") != (got == "") {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

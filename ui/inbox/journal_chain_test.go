package inbox

import (
	"bytes"
	"fmt"
	"os"
	"testing"

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

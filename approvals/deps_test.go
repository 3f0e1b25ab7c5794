package approvals

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImports keeps approvals free of terminal code and of the packages
// it must not know (STYLE rule 1; CONTRACTS import direction).
func TestImports(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, bad := range []string{"charmbracelet/", "a2atop/ui", "a2atop/a2aclient", "a2atop/demo", "a2aproject/a2a-go/v2/a2asrv"} {
			if strings.Contains(dep, bad) {
				t.Errorf("approvals depends on %s", dep)
			}
		}
	}
}

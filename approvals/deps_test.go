package approvals

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImports keeps approvals free of terminal code and of the packages
// it must not know: the UI, the demo, the SDK's server, and a2aclient
// with its transports (its error vocabulary, a2aclient/a2aerr, is pure
// and shared).
func TestImports(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == "a2atop/a2aclient/a2aerr" {
			continue
		}
		for _, bad := range []string{"charmbracelet/", "a2atop/ui", "a2atop/a2aclient", "a2atop/demo", "a2aproject/a2a-go/v2/a2asrv",
			"a2aproject/a2a-go/v2/a2aclient", "google.golang.org/grpc"} {
			if strings.Contains(dep, bad) {
				t.Errorf("approvals depends on %s", dep)
			}
		}
	}
}

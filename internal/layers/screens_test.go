package layers

import (
	"strings"
	"testing"
)

// screens are the dashboard's screens that are packages of their own:
// each a ui/common Component reached only through that contract and
// common.Context, below the root ui.
var screens = []string{module + "/ui/inbox", module + "/ui/help", module + "/ui/tasks", module + "/ui/detail", module + "/ui/agents"}

// TestScreensImportNoOtherScreen checks that a screen imports neither
// the root ui (it asks the root through common.Context.Out) nor another
// screen (it reaches one only through the root), test imports included.
func TestScreensImportNoOtherScreen(t *testing.T) {
	isScreen := map[string]bool{}
	for _, s := range screens {
		isScreen[s] = true
	}
	for _, line := range goListImports(t) {
		pkg, imports, _ := strings.Cut(line, ":")
		if !isScreen[pkg] {
			continue
		}
		for _, imp := range strings.Fields(imports) {
			if imp == module+"/ui" || (isScreen[imp] && imp != pkg) {
				t.Errorf("%s imports %s; a screen reaches the root and the other screens only through ui/common", pkg, imp)
			}
		}
	}
}

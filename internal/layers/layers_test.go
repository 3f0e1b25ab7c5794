package layers

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

const module = "a2atop"

// vocabulary is a2aclient's failure vocabulary, pure, shared with approvals.
const vocabulary = module + "/a2aclient/a2aerr"

// credentials are a2aclient's credentials and their flows, below it:
// the vocabulary and internal packages only.
const credentials = module + "/a2aclient/credential"

// httpEdge is the HTTP edge under the SDK and its workarounds, below
// a2aclient: the model, the vocabulary, the credentials' origins.
const httpEdge = module + "/a2aclient/edge"

// terminal are the module paths that only main and ui may use.
var terminal = []string{
	"github.com/charmbracelet/bubbletea",
	"github.com/charmbracelet/bubbles",
	"github.com/charmbracelet/lipgloss",
}

// goList runs `go list` in the module root with args and returns its
// output lines.
func goList(t *testing.T, args ...string) []string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	cmd := exec.Command(goBin, append([]string{"list", "-e"}, args...)...)
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %v: %v\n%s", args, err, out)
	}
	return strings.Fields(strings.TrimSpace(string(out)))
}

// present reports whether the package directory exists yet.
func present(pkg string) bool {
	_, err := os.Stat(filepath.Join("../..", strings.TrimPrefix(pkg, module+"/")))
	return err == nil
}

func isTerminal(path string) bool {
	for _, p := range terminal {
		if path == p || strings.HasPrefix(path, p+"/") {
			return true
		}
	}
	return false
}

// TestNoTerminalCodeBelowUI checks the transitive dependencies of the data
// and network layers.
func TestNoTerminalCodeBelowUI(t *testing.T) {
	for _, pkg := range []string{"a2atop/model", "a2atop/a2aclient", "a2atop/approvals", credentials, httpEdge, "a2atop/demo", "a2atop/hub", "a2atop/push", "a2atop/hubclient", "a2atop/internal/config", "a2atop/internal/sanitize", "a2atop/internal/statefile",
		agenttest, sdktest, feedtest} {
		t.Run(pkg, func(t *testing.T) {
			if !present(pkg) {
				t.Skipf("%s does not exist yet", pkg)
			}
			for _, dep := range goList(t, "-deps", pkg) {
				if isTerminal(dep) {
					t.Errorf("%s depends on %s; only ui/ and main may use terminal packages", pkg, dep)
				}
			}
		})
	}
}

// TestImportDirection checks each package's own a2atop imports.
func TestImportDirection(t *testing.T) {
	allowed := map[string]func(imp string) bool{
		"a2atop/model":     func(string) bool { return false },
		"a2atop/demo":      func(string) bool { return false },
		"a2atop/approvals": func(imp string) bool { return imp == "a2atop/model" || imp == vocabulary || internal(imp) },
		"a2atop/a2aclient": func(imp string) bool {
			return imp == "a2atop/model" || imp == vocabulary || imp == credentials || imp == httpEdge || internal(imp)
		},
		credentials: func(imp string) bool { return imp == vocabulary || internal(imp) },
		httpEdge: func(imp string) bool {
			return imp == "a2atop/model" || imp == vocabulary || imp == credentials || internal(imp)
		},
		vocabulary: func(string) bool { return false },
		// The team's hub serves what approvals and the model hold; it
		// reaches the agents through an interface (*a2aclient.Manager
		// satisfies it), not by importing a2aclient.
		"a2atop/hub": func(imp string) bool {
			return imp == "a2atop/model" || imp == "a2atop/approvals" || imp == vocabulary || internal(imp)
		},
		// The webhook for the agents' push notifications: the model's
		// types; it hands deliveries to a2aclient through an interface.
		"a2atop/push": func(imp string) bool { return imp == "a2atop/model" },
		// A dashboard's client of the hub: the hub's wire types and the
		// approvals seam it satisfies.
		"a2atop/hubclient": func(imp string) bool {
			return imp == "a2atop/hub" || imp == "a2atop/model" || imp == "a2atop/approvals" || imp == vocabulary || internal(imp)
		},
		// The team's journal in NATS JetStream: the approvals seam it
		// implements and what approvals brings in.
		"a2atop/approvals/jetstore": func(imp string) bool {
			return imp == "a2atop/approvals" || imp == "a2atop/model" || imp == vocabulary || internal(imp)
		},
		// The embedded NATS server: nats-server alone.
		module + "/internal/natsembed": func(string) bool { return false },
		// The agents tests run on loopback: the SDK alone, so that the
		// tests of every package, model's included, may use them.
		agenttest: func(string) bool { return false },
		// The SDK's own servers the tests of a2aclient and its edge run
		// on loopback: the SDK alone, as agenttest.
		sdktest: func(string) bool { return false },
		// A test's follower of a hub's feed: the hub's client and what
		// it brings in.
		feedtest: func(imp string) bool {
			return imp == "a2atop/hubclient" || imp == "a2atop/hub" || imp == "a2atop/model" || imp == "a2atop/approvals" ||
				imp == vocabulary || internal(imp)
		},
	}
	for pkg, ok := range allowed {
		t.Run(pkg, func(t *testing.T) {
			if !present(pkg) {
				t.Skipf("%s does not exist yet", pkg)
			}
			for _, dep := range goList(t, "-deps", pkg) {
				if dep == pkg || !strings.HasPrefix(dep, module+"/") {
					continue
				}
				if !ok(dep) && !allowedTransitively(pkg, dep) {
					t.Errorf("%s depends on %s, against the import direction in this package's doc", pkg, dep)
				}
			}
		})
	}
}

// allowedTransitively accepts what an allowed import itself brings in
// (model and internal packages only ever bring in each other).
func allowedTransitively(pkg, dep string) bool {
	if (pkg == "a2atop/hub" || pkg == "a2atop/hubclient") && (dep == "a2atop/approvals" || dep == vocabulary) {
		return true // what approvals brings in
	}
	return pkg != "a2atop/model" && pkg != "a2atop/demo" && pkg != vocabulary && pkg != credentials && pkg != agenttest && pkg != sdktest &&
		(dep == "a2atop/model" || internal(dep))
}

// above are the internal packages that import a2aclient and approvals
// (config builds their options, cli runs the commands, feedtest follows
// a hub with its client): the data and network layers may not import
// them back.
var above = []string{module + "/internal/cli", module + "/internal/config", feedtest}

// The packages for tests only that the tests of several packages share.
const (
	agenttest = module + "/internal/agenttest" // the agents tests run on loopback
	sdktest   = module + "/internal/sdktest"   // the SDK's own servers on loopback
	feedtest  = module + "/internal/feedtest"  // a follower of a hub's feed
)

// internal reports an internal package that the data and network layers
// may import: any under a2atop/internal/ except those above them.
func internal(imp string) bool {
	if !strings.HasPrefix(imp, module+"/internal/") {
		return false
	}
	for _, a := range above {
		if imp == a || strings.HasPrefix(imp, a+"/") {
			return false
		}
	}
	return true
}

// TestInternalCLIIsTheTop checks that a2atop/internal/cli, which holds the
// commands and may import every package, is imported by package main (the
// repo root) alone, test imports included, and by the benchmark commands
// under bench/, which run the dashboard as it runs.
func TestInternalCLIIsTheTop(t *testing.T) {
	const cli = module + "/internal/cli"
	if !present(cli) {
		t.Skipf("%s does not exist yet", cli)
	}
	for _, line := range goListImports(t) {
		pkg, imports, _ := strings.Cut(line, ":")
		if pkg == module || pkg == cli || isBench(pkg) {
			continue
		}
		for _, imp := range strings.Fields(imports) {
			if imp == cli || strings.HasPrefix(imp, cli+"/") {
				t.Errorf("%s imports %s; only package main may", pkg, imp)
			}
		}
	}
}

// TestOnlyMainAndUIImportTerminal checks direct imports across the module:
// only package main (the repo root), a2atop/internal/cli (which runs the
// dashboard's program), a2atop/ui/... and the benchmark commands under
// bench/ (which run the dashboard's program to measure it) import
// bubbletea, bubbles or lipgloss.
func TestOnlyMainAndUIImportTerminal(t *testing.T) {
	for _, line := range goListImports(t) {
		pkg, imports, _ := strings.Cut(line, ":")
		if pkg == sshd && !sshdImportsOK(imports) {
			t.Errorf("%s imports %s; it may import ui/ and hubclient (and what they bring in), never internal/cli", pkg, imports)
		}
		if pkg == module || pkg == module+"/internal/cli" || pkg == sshd || pkg == module+"/ui" || strings.HasPrefix(pkg, module+"/ui/") || isBench(pkg) {
			continue
		}
		for _, imp := range strings.Fields(imports) {
			if isTerminal(imp) {
				t.Errorf("%s imports %s; only ui/, internal/cli and main may", pkg, imp)
			}
		}
	}
}

// sshd serves the dashboard's program over SSH: it runs Bubble Tea on
// the session and draws with lipgloss, so it may import the terminal
// packages; of a2atop's, ui/ and hubclient and the internal packages
// below internal/cli.
const sshd = module + "/internal/sshd"

// sshdImportsOK reports whether sshd's own a2atop imports keep to that.
func sshdImportsOK(imports string) bool {
	for _, imp := range strings.Fields(imports) {
		if !strings.HasPrefix(imp, module+"/") {
			continue
		}
		if imp != module+"/ui" && !strings.HasPrefix(imp, module+"/ui/") && imp != module+"/hubclient" && !internal(imp) {
			return false
		}
	}
	return true
}

// goListImports returns "pkg:imp imp ..." for every package of the module,
// test imports included.
func goListImports(t *testing.T) []string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	cmd := exec.Command(goBin, "list", "-e", "-f",
		`{{.ImportPath}}:{{join .Imports " "}} {{join .TestImports " "}} {{join .XTestImports " "}}`, "./...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list ./...: %v\n%s", err, out)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// TestBinaryLinksNoTestHelpers checks that the a2atop binary never links
// the packages that exist for tests only: the OpenID provider, the
// certificates, the signed cards, the pseudo-terminals, the agents
// (agenttest, sdktest) and the feed follower tests run against.
func TestBinaryLinksNoTestHelpers(t *testing.T) {
	for _, dep := range goList(t, "-deps", module) {
		if dep == module+"/internal/oidctest" || dep == module+"/internal/testcert" || dep == module+"/internal/ptytest" || dep == module+"/internal/cardtest" || dep == agenttest || dep == sdktest || dep == feedtest ||
			strings.HasPrefix(dep, "github.com/zitadel/oidc/v3/pkg/op") {
			t.Errorf("the a2atop binary links %s, which is for tests only", dep)
		}
	}
}

// isBench reports whether pkg is one of the benchmark commands under
// bench/: package main programs kept out of the product, run on demand.
func isBench(pkg string) bool { return strings.HasPrefix(pkg, module+"/bench/") }

package cli

import (
	"context"
	"strings"
	"testing"
)

// Every command answers -h and --help with its own usage on stdout and
// exit status 0, and does nothing else: `version --help` does not print
// the version, `demo -h` starts no agents. `help COMMAND` prints the same.
func TestEveryCommandAnswersHelp(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	for _, d := range commandDocs {
		if d.name == "" || d.name == "help" {
			continue
		}
		for _, args := range [][]string{{d.name, "-h"}, {d.name, "--help"}, {"help", d.name}} {
			code, out, errOut := runCmd(ctx, args...)
			want := "Usage:\n  a2atop " + d.synopsis + "\n"
			if code != exitOK || !strings.HasPrefix(out, want) || errOut != "" {
				t.Errorf("a2atop %v = %d\nstdout %q\nstderr %q\nwant 0 and stdout starting %q", args, code, out, errOut, want)
			}
			if strings.Contains(out, versionString()) {
				t.Errorf("a2atop %v printed the version: %q", args, out)
			}
		}
	}
	for _, args := range [][]string{{"-h"}, {"--help"}, {"help"}, {"--config", "x.toml", "-h"}} {
		code, out, errOut := runCmd(ctx, args...)
		if code != exitOK || !strings.Contains(out, "a2atop reply") || !strings.Contains(out, "Exit status:") || errOut != "" {
			t.Errorf("a2atop %v = %d %q %q; want the whole usage", args, code, out, errOut)
		}
	}
	// A flag error prints the error and the usage on stderr, exit 2.
	code, out, errOut := runCmd(ctx, "reply", "--bogus")
	if code != exitUsage || out != "" || !strings.Contains(errOut, "flag provided but not defined: -bogus") ||
		!strings.Contains(errOut, "Usage:\n  a2atop reply") {
		t.Errorf("reply --bogus = %d %q %q", code, out, errOut)
	}
	if code, _, errOut := runCmd(ctx, "help", "bogus"); code != exitUsage || !strings.Contains(errOut, `unknown command "bogus"`) {
		t.Errorf("help bogus = %d %q", code, errOut)
	}
	if code, _, errOut := runCmd(ctx, "version", "extra"); code != exitUsage || !strings.Contains(errOut, `unexpected argument "extra"`) {
		t.Errorf("version extra = %d %q", code, errOut)
	}
}

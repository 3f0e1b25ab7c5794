package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// version is set at link time (-ldflags "-X a2atop/internal/cli.version=v1.2.3"); when
// empty, the module and VCS information of the build is used.
var version = ""

// runVersion implements `a2atop version`: the version, the commit when
// known, and the SDK.
func runVersion(args []string, st Streams) int {
	o := newOptions("version", st)
	rest, err := o.parse(args)
	if err != nil {
		return flagStatus(err)
	}
	if len(rest) > 0 {
		return o.failf(exitUsage, "unexpected argument %q", rest[0])
	}
	fmt.Fprintln(st.Out, versionString())
	return exitOK
}

func versionString() string {
	v, rev, sdk := version, "", ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v == "" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					rev += "+dirty"
				}
			}
		}
		for _, d := range bi.Deps {
			if d.Path == "github.com/a2aproject/a2a-go/v2" {
				sdk = d.Version
			}
		}
	}
	if v == "" {
		v = "(devel)"
	}
	out := "a2atop " + v
	if rev != "" {
		out += " " + rev
	}
	out += " " + runtime.Version()
	if sdk != "" {
		out += " a2a-go " + sdk
	}
	return out
}

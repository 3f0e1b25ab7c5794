package cli

import (
	"errors"
	"flag"
	"fmt"
	"time"

	"a2atop/internal/config"
	"a2atop/internal/sanitize"
)

// noAgents is what every command that watches agents says when neither
// the configuration nor the command line names one.
const noAgents = "no agents: pass agent base URLs (http://host:port), " +
	"configure [[agent]] tables (see config.example.toml), or try the demo: a2atop demo"

// options are what every command starts from: its name, its streams, its
// flag set, and the flags that several commands share, each defined here
// once. A command adds the shared flags it has (configFlag, readOnlyFlag,
// timeoutFlag) and its own, then calls parse. Not safe for concurrent use.
type options struct {
	cmd  string // the command as the log names it: "check", "dashboard"
	name string // the command as messages name it: "a2atop check", "a2atop"
	st   Streams
	fs   *flag.FlagSet

	config   string        // --config FILE; "" means $A2ATOP_CONFIG, then the default path
	readOnly bool          // --read-only
	hub      string        // --hub URL: attach to a team's hub
	timeout  time.Duration // --timeout D
	format   *formatFlag
}

// formatFlag is the output format a command requires (tasks --json,
// watch --jsonl): each has one format for now, named on the command line
// so that another can come later.
type formatFlag struct {
	name, only string // "json"; "JSON is the only output format for now"
	set        *bool
}

// newOptions returns the options of the command cmd, "" for the
// dashboard. -h and --help print the command's usage (printUsage) on
// st.Out; a flag error prints the error and the usage on st.Err.
func newOptions(cmd string, st Streams) *options {
	o := &options{cmd: cmd, name: "a2atop " + cmd, st: st}
	if cmd == "" {
		o.cmd, o.name = "dashboard", "a2atop"
	}
	o.fs = flag.NewFlagSet(o.name, flag.ContinueOnError)
	o.fs.SetOutput(st.Err)
	o.fs.Usage = func() {} // parseFlags prints the usage where it belongs
	return o
}

// configFlag defines --config FILE.
func (o *options) configFlag() {
	o.fs.StringVar(&o.config, "config", "", "config `FILE` (default $A2ATOP_CONFIG, then ~/.config/a2atop/config.toml)")
}

// readOnlyFlag defines --read-only.
func (o *options) readOnlyFlag() {
	o.fs.BoolVar(&o.readOnly, "read-only", false, "hide every action that writes to an agent")
}

// timeoutFlag defines --timeout D; usage says what it bounds.
func (o *options) timeoutFlag(def time.Duration, usage string) {
	o.fs.DurationVar(&o.timeout, "timeout", def, usage)
}

// requireFormat defines --name, the output format the command requires;
// parse refuses a command line without it and says why (only).
func (o *options) requireFormat(name, usage, only string) {
	o.format = &formatFlag{name: name, only: only, set: o.fs.Bool(name, false, usage)}
}

// errFormat is parse's error for a missing required format flag.
var errFormat = errors.New("missing output format")

// parse parses flags anywhere among the positional arguments
// ("a2atop check URL --config f" works) and returns the positionals. A
// required format that is missing is an error it reports itself.
func (o *options) parse(args []string) ([]string, error) {
	pos, err := o.parseFlags(args)
	if err == nil && o.format != nil && !*o.format.set {
		o.failf(exitUsage, "add --%s (%s)", o.format.name, o.format.only)
		return nil, errFormat
	}
	return pos, err
}

// parseFlags is parse without the check of the required format.
func (o *options) parseFlags(args []string) ([]string, error) {
	var pos []string
	for {
		if err := o.fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				o.printUsage(o.st.Out)
			} else {
				o.printUsage(o.st.Err)
			}
			return nil, err
		}
		args = o.fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos, args = append(pos, args[0]), args[1:]
	}
}

// flagStatus is the exit status for a parse error, which has been
// printed: 0 for -h (the usage), else exitUsage.
func flagStatus(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	return exitUsage
}

// maxMessage bounds one message on stderr, in cells.
const maxMessage = 2000

// failf prints "a2atop CMD: " and the message on the error stream and
// returns code, so that a command ends with `return o.failf(exitUsage, …)`.
// The whole message goes through sanitize.Line: errors carry agent text
// (a task's state, an agent's error message) wherever they were made.
func (o *options) failf(code int, format string, args ...any) int {
	fmt.Fprintf(o.st.Err, "%s: %s\n", o.name, sanitize.Line(fmt.Sprintf(format, args...), maxMessage))
	return code
}

// load loads and validates the configuration (--config) plus the agent
// base URLs given; on error it says so and returns exitUsage.
func (o *options) load(urls []string) (*config.Config, int) {
	cfg, err := config.Load(o.config, urls)
	if err != nil {
		return nil, o.failf(exitUsage, "config: %v", err)
	}
	return cfg, exitOK
}

// loadAgents is load for a command that watches agents: a configuration
// without any is a usage error too.
func (o *options) loadAgents(urls []string) (*config.Config, int) {
	cfg, code := o.load(urls)
	if cfg != nil && len(cfg.Agents) == 0 {
		return nil, o.failf(exitUsage, noAgents)
	}
	return cfg, code
}

// Package cli is a2atop's command line: it parses the arguments, loads the
// configuration and runs one command (the dashboard, demo, check, tasks,
// watch, reply, version, help) to its exit status. Main is the entry
// point; package main only sets up the signals and calls it.
//
// cli owns the commands, their flags and messages, the exit statuses, the
// JSON that tasks and watch print, and the process's log file. It is the
// top of the module: it may import every a2atop package and the terminal
// packages, and only package main imports it.
//
// To add a command: write name.go with runName(ctx, args, st), which
// starts from newOptions("name", st), adds the shared flags it has
// (configFlag, readOnlyFlag, timeoutFlag) and its own, calls parse, then
// connect (or load and open) to reach its agents, and reports problems
// with failf, so that every message starts with "a2atop name:". Add it to
// the switch in run and to commandDocs (its synopsis and what it does,
// which `a2atop help` and `a2atop name -h` print), and test it through run
// against the demo agents on loopback.
package cli

// Package ptytest opens the pseudo-terminals the tests of a terminal
// program's start and output run on (Linux: /dev/ptmx). It is for tests
// only; it imports the standard library and golang.org/x/sys/unix.
package ptytest

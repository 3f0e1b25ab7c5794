// Package statefile opens the files a2atop keeps in its state directory
// (the approvals journal, the log) so that another local user cannot
// plant them: not by creating the directory first, not by a symbolic
// link to one of the victim's files, not by a file of their own.
//
// A state directory is created with mode 0700. One that exists must be a
// directory owned by the user a2atop runs as and not writable by group or
// others; a state file is opened without following a symbolic link
// (O_NOFOLLOW), must be a regular file owned by that user, and is made
// 0600. Anything else is refused with an error that wraps ErrUnsafe and
// says what to do.
//
// Lock serializes a read-modify-write of one state file across a2atop's
// processes (flock(2) on a lock file beside it, on unix systems).
//
// statefile owns only these functions and holds no state. It may import
// the standard library only; approvals and the command that opens the log
// use it.
package statefile

//go:build !unix

package a2aclient

import "io/fs"

// fileIdentity is unknown here: size and time tell a change.
func fileIdentity(fs.FileInfo) any { return nil }

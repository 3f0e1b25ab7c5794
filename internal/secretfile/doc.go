// Package secretfile reads the small files a2atop takes a secret, a key,
// a certificate or a list from: token files, client secrets, header
// values, certificates and their keys, CA bundles, pinned card keys,
// operator tokens, the hub token and the device flow's stored sign-in.
//
// A file is read only when it is a regular file (a symbolic link is
// followed to one) of at most MaxSize bytes: a link to /dev/zero, a named
// pipe, a directory or a log that grew without end is refused at once
// with an error that names the file and the reason, instead of a read
// that never ends or fills the memory. Opening does not block on a named
// pipe (O_NONBLOCK on unix systems). KeyPair loads a certificate and its
// key so; ReadableByOthers says when other users may read a key file.
//
// secretfile holds no state and may import the standard library only;
// a2aclient, internal/config and internal/cli use it.
package secretfile

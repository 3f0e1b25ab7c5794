package approvals

import (
	"crypto/rand"
	"encoding/hex"
	"sync"
)

// The Services open in this process, by id: a pending decision recorded
// by one of them is being sent while it is open (see sendingElsewhere),
// whereas one recorded by a Service of this process that was closed was
// left by it, as by a crash.
var openServices = struct {
	sync.Mutex
	ids map[string]bool
}{ids: map[string]bool{}}

// newServiceID is a random id for a Service, unique among the processes
// that share a journal.
func newServiceID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read does not fail (Go 1.24+)
	return hex.EncodeToString(b[:])
}

func markServiceOpen(id string) {
	openServices.Lock()
	openServices.ids[id] = true
	openServices.Unlock()
}

func closeService(id string) {
	openServices.Lock()
	delete(openServices.ids, id)
	openServices.Unlock()
}

// serviceOpen reports whether the Service id is open in this process.
func serviceOpen(id string) bool {
	openServices.Lock()
	defer openServices.Unlock()
	return openServices.ids[id]
}

package credential

// Device is the device flow of the credential, once its plan is one;
// nil otherwise.
func (a *Chooser) Device() *DeviceSource {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.device
}

// Reset forgets the token the credential holds and its last error, so
// that the next call fetches anew (after a sign-in).
func (a *Chooser) Reset() {
	if ct, ok := a.cached(); ok {
		ct.reset()
	}
}

// cached is the cachedToken of the credential, if it has one.
func (a *Chooser) cached() (*cachedToken, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	ct, ok := a.inner.(*cachedToken)
	return ct, ok
}

// reset forgets the token and the last error: the next call fetches anew.
func (c *cachedToken) reset() {
	c.mu.Lock()
	c.tok, c.err = "", nil
	c.mu.Unlock()
}

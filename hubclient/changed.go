package hubclient

// Changed is closed at the next change of what a dashboard reads of the
// hub besides its events: the feed up or down and why (Connected), the
// team's claims (ClaimsVersion), the claims this client holds, who the
// operator is (Me), whether the hub can reach the team's record
// (RecordReachable), and the journal lines the Service followed. Each
// change closes it and puts a new one in its place, so a dashboard
// takes the channel, then reads the state, then waits: it sleeps until
// the hub's state changes and misses none. It is nil once Run has
// returned (nothing changes any more).
func (c *Client) Changed() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.changed
}

// changedLocked wakes whoever waits on Changed; call it with c.mu held.
func (c *Client) changedLocked() {
	if c.changed == nil {
		return
	}
	close(c.changed)
	c.changed = make(chan struct{})
}

// ended wakes the waiters a last time and leaves Changed nil: Run has
// returned.
func (c *Client) ended() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.changed != nil {
		close(c.changed)
		c.changed = nil
	}
}

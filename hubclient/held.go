package hubclient

import (
	"context"
	"errors"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// hold notes a claim this client made (on) or released (off).
func (c *Client) hold(agent string, id a2a.TaskID, on bool) {
	k := claimKey{agent: agent, task: string(id)}
	c.mu.Lock()
	defer c.mu.Unlock()
	if on {
		c.held[k] = true
	} else {
		delete(c.held, k)
	}
	c.changedLocked()
}

// ReleaseHeld releases every claim this client made and has not
// released, for a dashboard that exits with a dialog open: the team
// sees at once that nobody is answering, rather than when the claim
// expires. It returns when each release is answered or ctx ends (give
// it a short deadline: the hub drops an idle claim anyway).
func (c *Client) ReleaseHeld(ctx context.Context) error {
	c.mu.Lock()
	keys := make([]claimKey, 0, len(c.held))
	for k := range c.held {
		keys = append(keys, k)
	}
	c.mu.Unlock()
	var errs error
	for _, k := range keys {
		if err := c.Release(ctx, k.agent, a2a.TaskID(k.task)); err != nil {
			errs = errors.Join(errs, err)
		}
	}
	return errs
}

package a2aclient

import (
	"context"
	"fmt"

	"a2atop/a2aclient/credential"
)

// StartLogin begins the OAuth 2.0 device sign-in of agent (type
// oauth2_device, or chosen so by the card): it reads the card when the
// endpoints come from it, and asks the device authorization endpoint for
// a code. Show the person DeviceCode.VerificationURI and UserCode, then
// call AwaitLogin.
func (m *Manager) StartLogin(ctx context.Context, agent string) (*DeviceCode, error) {
	ds, err := m.deviceSource(ctx, agent)
	if err != nil {
		return nil, err
	}
	return ds.Start(ctx)
}

// AwaitLogin polls the token endpoint until the person approved dc on the
// provider's page (or refused it, or it expired, or ctx ended), keeps the
// refresh token in the agent's 0600 state file and wakes the watcher,
// whose next calls carry the new token.
func (m *Manager) AwaitLogin(ctx context.Context, agent string, dc *DeviceCode) error {
	ds, err := m.deviceSource(ctx, agent)
	if err != nil {
		return err
	}
	if err := ds.Await(ctx, dc); err != nil {
		return err
	}
	w := m.watchers[agent]
	w.c.auth.Reset()
	select {
	case w.kick <- struct{}{}:
	default:
	}
	return nil
}

// deviceSource is agent's device flow, once its card is read.
func (m *Manager) deviceSource(ctx context.Context, agent string) (*credential.DeviceSource, error) {
	w, err := m.watcher(agent)
	if err != nil {
		return nil, err
	}
	a := w.c.auth
	if a == nil {
		return nil, fmt.Errorf("agent %q has no credential to sign in for: set type = \"oauth2_device\" and client_id in its [agent.auth]", agent)
	}
	ds := a.Device()
	if ds == nil && w.getClient() == nil {
		if err := w.connect(ctx); err != nil {
			return nil, err
		}
		ds = a.Device()
	}
	if ds == nil {
		scheme, missing := a.Status()
		if missing != "" {
			return nil, &credential.CredentialError{Words: missing}
		}
		return nil, fmt.Errorf("agent %q does not sign in with the device flow (its credential is %s)", agent, scheme)
	}
	return ds, nil
}

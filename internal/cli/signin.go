package cli

import (
	"context"
	"errors"

	"a2atop/a2aclient"
	"a2atop/ui"
)

// uiBackend is the dashboard's ui.Backend: the Manager, and its device
// sign-in in the ui's own words (ui.SignInBackend), for the agents view's
// sign-in dialog.
type uiBackend struct{ *a2aclient.Manager }

// StartSignIn implements ui.SignInBackend.
func (b uiBackend) StartSignIn(ctx context.Context, agent string) (*ui.DeviceCode, error) {
	dc, err := b.StartLogin(ctx, agent)
	if err != nil {
		return nil, err
	}
	return &ui.DeviceCode{VerificationURI: dc.VerificationURI, VerificationURIComplete: dc.VerificationURIComplete,
		UserCode: dc.UserCode, Expiry: dc.Expiry, Handle: dc}, nil
}

// AwaitSignIn implements ui.SignInBackend.
func (b uiBackend) AwaitSignIn(ctx context.Context, agent string, dc *ui.DeviceCode) error {
	code, ok := dc.Handle.(*a2aclient.DeviceCode)
	if !ok {
		return errors.New("not a code this backend gave")
	}
	return b.AwaitLogin(ctx, agent, code)
}

// Describe implements ui.SignInBackend.
func (uiBackend) Describe(err error) string { return a2aclient.Describe(err) }

package credential

import "context"

// earlyCredential is the credential the config names without a type,
// before the card's requirements refine the choice: the token as a
// bearer token, or as an API key in api_key_header. nil for anything
// else (a client id, a command: what to do with them needs the card).
func (a *Chooser) earlyCredential() Credential {
	o := a.o
	if o.Type != AuthAuto || o.Token.IsZero() || o.ClientID != "" || len(o.Command) > 0 {
		return nil
	}
	if o.APIKeyHeader != "" {
		return secretToken(o.Token, o.APIKeyHeader, "")
	}
	return secretToken(o.Token, "Authorization", "Bearer ")
}

// CardFetchHeaders are the early credential's headers for a card fetch
// while the credential waits for the card; none when there is none.
func (a *Chooser) CardFetchHeaders(ctx context.Context) ([]Header, error) {
	if a == nil || a.early == nil {
		return nil, nil
	}
	return a.early.Headers(ctx)
}

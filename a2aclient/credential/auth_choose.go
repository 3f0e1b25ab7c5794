package credential

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// authPlan is what the credential of an agent will be: the kind (one of
// the Auth* types), the card's scheme it meets (when the card has one),
// and the details the card or the config supplied.
type authPlan struct {
	kind      string
	scheme    string // the card's security scheme name, "" when none
	header    string // bearer: Authorization; api_key: the header
	tokenURL  string
	deviceURL string
	scopes    []string
	missing   string // what the config lacks for the card's requirement, "" when nothing
}

// describe is the plan in words for the agents view and check:
// `oauth2 client credentials (card scheme "corp")`.
func (p authPlan) describe() string {
	words := map[string]string{
		AuthBearer: "bearer token", AuthAPIKey: "API key in " + p.header, AuthClientCredentials: "OAuth 2.0 client credentials",
		AuthDevice: "OAuth 2.0 device sign-in", AuthCommand: "credential command", AuthMTLS: "client certificate",
	}[p.kind]
	if words == "" {
		words = "none"
	}
	if p.scheme != "" {
		words += fmt.Sprintf(" (card scheme %q)", p.scheme)
	}
	return words
}

// Chooser is the agent's credential: it builds the credential of its
// plan, at once when the config says everything, otherwise when the card
// has been read (Bind), from the card's security requirements and
// schemes. It is a Credential. Safe for concurrent use.
type Chooser struct {
	o       AuthOptions
	agent   string
	allowed func(Origin) bool // where the agent's secrets may go
	hc      *http.Client      // the token endpoints'

	// early is the credential the config fully names (a token, an API
	// key in a named header) while inner waits for the card: the card
	// fetch carries it to the agent's own origin (cardFetchHeaders), for
	// an agent may protect its card too. nil when inner was built from
	// the config, or the config names no such credential.
	early Credential

	mu     sync.Mutex
	inner  Credential
	plan   authPlan
	why    error // why there is no inner credential
	device *DeviceSource
}

// NewChooser returns the credential of o, nil when o sends none; allowed
// is the origin rule a token endpoint the card names must pass, hc the
// token endpoints' client (TokenClient).
func NewChooser(agent string, o AuthOptions, allowed func(Origin) bool, hc *http.Client) *Chooser {
	if o.Type == AuthMTLS || (o.Type == AuthAuto && o.Token.IsZero() && o.ClientID == "" && len(o.Command) == 0) {
		return nil
	}
	a := &Chooser{o: o, agent: agent, allowed: allowed, hc: hc,
		why: &CredentialError{Words: "the agent's card has not been read yet"}}
	if p, ok := a.planFromConfig(); ok {
		a.build(p)
	} else {
		a.early = a.earlyCredential()
	}
	return a
}

// planFromConfig is the plan when the config alone says it all.
func (a *Chooser) planFromConfig() (authPlan, bool) {
	o := a.o
	switch o.Type {
	case AuthBearer:
		return authPlan{kind: AuthBearer, header: "Authorization"}, true
	case AuthAPIKey:
		return authPlan{kind: AuthAPIKey, header: o.APIKeyHeader}, o.APIKeyHeader != ""
	case AuthCommand:
		return authPlan{kind: AuthCommand, header: o.APIKeyHeader}, true
	case AuthClientCredentials:
		return authPlan{kind: AuthClientCredentials, tokenURL: o.TokenURL, scopes: o.Scopes}, o.TokenURL != ""
	case AuthDevice:
		return authPlan{kind: AuthDevice, tokenURL: o.TokenURL, deviceURL: o.DeviceAuthURL, scopes: o.Scopes},
			o.TokenURL != "" && o.DeviceAuthURL != ""
	}
	return authPlan{}, false
}

// Bind reads the card: a credential that waited for it is built now.
// The plan of a credential built from the config alone is kept.
func (a *Chooser) Bind(card *a2a.AgentCard) {
	a.mu.Lock()
	built := a.inner != nil
	a.mu.Unlock()
	if built {
		a.mu.Lock()
		a.plan.scheme = matchScheme(card, a.plan.kind)
		a.mu.Unlock()
		return
	}
	a.build(a.choose(card))
}

// build makes the credential of plan p.
func (a *Chooser) build(p authPlan) {
	inner, err := a.credentialOf(&p)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.plan, a.inner, a.why = p, inner, err
	if d, ok := inner.(*cachedToken); ok {
		if ds, ok := d.src.(*DeviceSource); ok {
			a.device = ds
		}
	}
	if err != nil {
		a.inner = nil
	}
}

// credentialOf makes the credential of p; the token endpoints must pass
// the origin rules when they come from the card.
func (a *Chooser) credentialOf(p *authPlan) (Credential, error) {
	o := a.o
	switch p.kind {
	case AuthBearer:
		return secretToken(o.Token, "Authorization", "Bearer "), nil
	case AuthAPIKey:
		return secretToken(o.Token, orDefault(p.header, "X-API-Key"), ""), nil
	case AuthCommand:
		header, prefix := "Authorization", "Bearer "
		if p.header != "" {
			header, prefix = p.header, ""
		}
		timeout := o.CommandTimeout
		if timeout <= 0 {
			timeout = DefaultCommandTimeout
		}
		return newCachedToken(commandSource{argv: o.Command, timeout: timeout, now: time.Now}, header, prefix), nil
	case AuthClientCredentials:
		if err := a.endpoint("token endpoint", p.tokenURL, o.TokenURL); err != nil {
			return nil, err
		}
		src := &clientCredentialsSource{cfg: clientcredentials.Config{ClientID: o.ClientID, TokenURL: p.tokenURL, Scopes: p.scopes},
			secret: o.ClientSecret, hc: a.hc}
		return newCachedToken(src, "Authorization", "Bearer "), nil
	case AuthDevice:
		if err := a.endpoint("token endpoint", p.tokenURL, o.TokenURL); err != nil {
			return nil, err
		}
		if err := a.endpoint("device authorization endpoint", p.deviceURL, o.DeviceAuthURL); err != nil {
			return nil, err
		}
		cfg := oauth2.Config{ClientID: o.ClientID, Scopes: withOffline(p.scopes),
			Endpoint: oauth2.Endpoint{TokenURL: p.tokenURL, DeviceAuthURL: p.deviceURL}}
		if sec, err := readSecret(o.ClientSecret, "client secret"); err == nil && sec != "" {
			cfg.ClientSecret = sec
		} else {
			cfg.Endpoint.AuthStyle = oauth2.AuthStyleInParams // a public client: its id in the form, no Basic header
		}
		src := &DeviceSource{cfg: cfg, store: newRefreshStore(o.RefreshTokenFile), hc: a.hc, agent: a.agent}
		return newCachedToken(src, "Authorization", "Bearer "), nil
	case AuthMTLS:
		return nil, nil
	}
	return nil, &CredentialError{Words: p.missing}
}

// endpoint checks a token endpoint URL. One the config names is trusted
// (the config was validated). One from the card must be on the agent's
// origin or in AllowedHosts, with the same no-downgrade rule as every
// secret: the client secret and the refresh token go nowhere else.
func (a *Chooser) endpoint(what, u, configured string) error {
	if u == "" {
		return &CredentialError{Words: fmt.Sprintf("no %s: the card names none; set it in [agent.auth]", what)}
	}
	if u == configured {
		return nil
	}
	o := OriginOf(u)
	if a.allowed(o) {
		return nil
	}
	return &CredentialError{Words: fmt.Sprintf("the card names its %s on %s, another origin than the agent's: "+
		"a2atop does not send the client's credentials there; if you trust it, add %q to allowed_hosts, or set its URL in [agent.auth]",
		what, o, o.HostPort)}
}

func withOffline(scopes []string) []string {
	if slices.Contains(scopes, "offline_access") {
		return scopes
	}
	return append(append([]string(nil), scopes...), "offline_access")
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Headers implements Credential.
func (a *Chooser) Headers(ctx context.Context) ([]Header, error) {
	a.mu.Lock()
	inner, why := a.inner, a.why
	a.mu.Unlock()
	if inner == nil {
		if why == nil {
			return nil, nil
		}
		return nil, why
	}
	return inner.Headers(ctx)
}

// Refused implements Credential.
func (a *Chooser) Refused(value string) bool {
	a.mu.Lock()
	inner := a.inner
	a.mu.Unlock()
	return inner != nil && inner.Refused(value)
}

// Names implements Credential.
func (a *Chooser) Names() []string {
	names := []string{"Authorization"}
	if a.o.APIKeyHeader != "" {
		names = append(names, a.o.APIKeyHeader)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.plan.header != "" && !slices.Contains(names, a.plan.header) {
		names = append(names, a.plan.header)
	}
	return names
}

// Status is the plan in words and what is missing, for AgentInfo.
func (a *Chooser) Status() (scheme, missing string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	scheme = a.plan.describe()
	if a.plan.missing != "" {
		missing = a.plan.missing
	} else if ce := ErrorOf(a.why); ce != nil && a.inner == nil {
		missing = ce.Words
	}
	return scheme, missing
}

// choose picks, from the card's security requirements (alternatives,
// each a set of schemes used together), the first the config can meet
// wholly, given the type the config names (any, with AuthAuto). When
// none can be met, the plan is the first requirement's and says what is
// missing. A card with no requirements takes what the config names.
func (a *Chooser) choose(card *a2a.AgentCard) authPlan {
	reqs := card.SecurityRequirements
	if len(reqs) == 0 {
		// The card asks nothing: every scheme it declares is an option.
		for _, name := range sortedSchemes(card) {
			reqs = append(reqs, a2a.SecurityRequirements{name: nil})
		}
	}
	var first *authPlan
	for _, req := range reqs {
		p, ok := a.meet(card, req)
		if ok {
			return p
		}
		if first == nil {
			first = &p
		}
	}
	if p, ok := a.planFromConfig(); ok {
		return p
	}
	if first != nil {
		return *first
	}
	return a.fallback()
}

// fallback is the plan for a card that names no scheme at all: the
// token as a bearer token, or the command's.
func (a *Chooser) fallback() authPlan {
	switch {
	case len(a.o.Command) > 0:
		return authPlan{kind: AuthCommand, header: a.o.APIKeyHeader}
	case !a.o.Token.IsZero() && a.o.APIKeyHeader != "":
		return authPlan{kind: AuthAPIKey, header: a.o.APIKeyHeader}
	case !a.o.Token.IsZero():
		return authPlan{kind: AuthBearer, header: "Authorization"}
	}
	return authPlan{missing: "the card names no security scheme a2atop can use with this config: set type in [agent.auth]"}
}

// meet plans one requirement: every scheme in it must be met.
func (a *Chooser) meet(card *a2a.AgentCard, req a2a.SecurityRequirements) (authPlan, bool) {
	var plan authPlan
	var missing []string
	names := make([]string, 0, len(req))
	for n := range req {
		names = append(names, string(n))
	}
	sort.Strings(names)
	for _, n := range names {
		name := a2a.SecuritySchemeName(n)
		p, miss := a.meetScheme(name, card.SecuritySchemes[name], req[name])
		if miss != "" {
			missing = append(missing, miss)
			continue
		}
		if p.kind != AuthMTLS || plan.kind == "" {
			plan = p // a certificate goes with the token scheme, if there is one
		}
	}
	if len(missing) > 0 {
		if plan.kind == "" {
			plan.scheme = names[0]
		}
		plan.missing = strings.Join(missing, "; ")
		return plan, false
	}
	return plan, plan.kind != ""
}

// meetScheme plans one scheme of the card, or says what the config lacks.
func (a *Chooser) meetScheme(name a2a.SecuritySchemeName, s a2a.SecurityScheme, scopes a2a.SecuritySchemeScopes) (authPlan, string) {
	o := a.o
	want := func(kinds ...string) bool { return o.Type == AuthAuto || slices.Contains(kinds, o.Type) }
	hasToken := !o.Token.IsZero() || len(o.Command) > 0
	tokenKind := AuthBearer
	if len(o.Command) > 0 {
		tokenKind = AuthCommand
	}
	p := authPlan{scheme: string(name), scopes: o.Scopes}
	if len(p.scopes) == 0 {
		p.scopes = scopes
	}
	switch s := s.(type) {
	case a2a.HTTPAuthSecurityScheme:
		if !strings.EqualFold(s.Scheme, "bearer") {
			return p, fmt.Sprintf("scheme %q is HTTP %s authentication, which a2atop does not send", name, s.Scheme)
		}
		if !hasToken || !want(AuthBearer, AuthCommand) {
			return p, fmt.Sprintf("scheme %q wants a bearer token: set token_env or token_file (or a command)", name)
		}
		p.kind, p.header = tokenKind, "Authorization"
		if tokenKind == AuthCommand {
			p.header = ""
		}
	case a2a.APIKeySecurityScheme:
		if s.Location != a2a.APIKeySecuritySchemeLocationHeader {
			return p, fmt.Sprintf("scheme %q wants an API key in the %s, and a2atop sends secrets only in headers", name, s.Location)
		}
		if !hasToken || !want(AuthAPIKey, AuthCommand) {
			return p, fmt.Sprintf("scheme %q wants an API key in header %s: set token_env or token_file", name, s.Name)
		}
		p.kind, p.header = AuthAPIKey, orDefault(o.APIKeyHeader, s.Name)
		if tokenKind == AuthCommand {
			p.kind = AuthCommand
		}
	case a2a.OAuth2SecurityScheme:
		return a.meetOAuth2(p, name, s)
	case a2a.MutualTLSSecurityScheme:
		if !o.ClientCertificate {
			return p, fmt.Sprintf("scheme %q wants a client certificate: set cert_file and key_file", name)
		}
		p.kind = AuthMTLS
	case a2a.OpenIDConnectSecurityScheme:
		if o.ClientID == "" || o.TokenURL == "" {
			return p, fmt.Sprintf("scheme %q is OpenID Connect (%s): set client_id, token_url and, for a person, device_authorization_url", name, s.OpenIDConnectURL)
		}
		p.tokenURL, p.deviceURL = o.TokenURL, o.DeviceAuthURL
		p.kind = AuthClientCredentials
		if o.ClientSecret.IsZero() || o.Type == AuthDevice {
			p.kind = AuthDevice
		}
	case nil:
		return p, fmt.Sprintf("the card requires scheme %q but does not declare it", name)
	default:
		return p, fmt.Sprintf("scheme %q is of a kind a2atop does not know", name)
	}
	return p, ""
}

// meetOAuth2 plans an OAuth 2.0 scheme by its flow.
func (a *Chooser) meetOAuth2(p authPlan, name a2a.SecuritySchemeName, s a2a.OAuth2SecurityScheme) (authPlan, string) {
	o := a.o
	switch f := s.Flows.(type) {
	case a2a.ClientCredentialsOAuthFlow:
		if o.ClientID == "" || o.ClientSecret.IsZero() || (o.Type != AuthAuto && o.Type != AuthClientCredentials) {
			return p, fmt.Sprintf("scheme %q is OAuth 2.0 client credentials: set client_id and client_secret_env or client_secret_file", name)
		}
		p.kind, p.tokenURL = AuthClientCredentials, orDefault(o.TokenURL, f.TokenURL)
	case a2a.DeviceCodeOAuthFlow:
		if o.ClientID == "" || (o.Type != AuthAuto && o.Type != AuthDevice) {
			return p, fmt.Sprintf("scheme %q is OAuth 2.0 device sign-in: set client_id (type = \"oauth2_device\")", name)
		}
		p.kind, p.tokenURL, p.deviceURL = AuthDevice, orDefault(o.TokenURL, f.TokenURL), orDefault(o.DeviceAuthURL, f.DeviceAuthorizationURL)
	default:
		return p, fmt.Sprintf("scheme %q is an OAuth 2.0 flow a2atop cannot run in a terminal (it runs client credentials and device sign-in)", name)
	}
	return p, ""
}

// matchScheme names the card's scheme of the kind a credential built from
// the config alone meets, for the agents view ("" when none).
func matchScheme(card *a2a.AgentCard, kind string) string {
	for _, name := range sortedSchemes(card) {
		switch s := card.SecuritySchemes[name].(type) {
		case a2a.HTTPAuthSecurityScheme:
			if (kind == AuthBearer || kind == AuthCommand) && strings.EqualFold(s.Scheme, "bearer") {
				return string(name)
			}
		case a2a.APIKeySecurityScheme:
			if kind == AuthAPIKey {
				return string(name)
			}
		case a2a.OAuth2SecurityScheme:
			_, cc := s.Flows.(a2a.ClientCredentialsOAuthFlow)
			_, dc := s.Flows.(a2a.DeviceCodeOAuthFlow)
			if kind == AuthClientCredentials && cc || kind == AuthDevice && dc {
				return string(name)
			}
		}
	}
	return ""
}

func sortedSchemes(card *a2a.AgentCard) []a2a.SecuritySchemeName {
	names := make([]a2a.SecuritySchemeName, 0, len(card.SecuritySchemes))
	for n := range card.SecuritySchemes {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// SignIn reports whether the plan is the device sign-in (a person signs
// in with L or a2atop login).
func (a *Chooser) SignIn() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.plan.kind == AuthDevice
}

// Missing is what a config with no credential lacks for the card's
// security requirements, "" when nothing.
func Missing(card *a2a.AgentCard) string {
	return (&Chooser{}).choose(card).missing
}

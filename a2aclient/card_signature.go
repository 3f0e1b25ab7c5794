package a2aclient

import (
	"bytes"
	"cmp"
	"context"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	jose "github.com/go-jose/go-jose/v4"
	"github.com/gowebpki/jcs"

	"a2atop/a2aclient/credential"
	"a2atop/internal/secretfile"
)

// A card is signed with JWS (RFC 7515) over its canonical form: the card
// without its "signatures" member, with default values removed, in the
// JSON Canonicalization Scheme (RFC 8785, by github.com/gowebpki/jcs, a
// port of the RFC's reference implementation). Each entry of
// "signatures" holds the base64url protected header (alg, kid) and the
// signature; the payload is detached. a2atop verifies against the keys
// the config pins (a JWKS URL or a key file) and never against a key the
// card points at itself (a "jku" in a card an attacker serves names the
// attacker's key).

// The outcomes of a signature check.
const (
	sigUnsigned  = iota // the card has no signature
	sigValid            // one signature verified with a pinned key
	sigInvalid          // the card has signatures and none verified
	sigUnchecked        // the card is signed and no key is pinned
)

// sigResult is what the check found.
type sigResult struct {
	state int
	kid   string // the key that verified, or that was named
	why   string // for sigInvalid
}

// words are the result for the agents view and check.
func (r sigResult) words() string {
	switch r.state {
	case sigValid:
		if r.kid != "" {
			return "signed ✓ (key " + r.kid + ")"
		}
		return "signed ✓"
	case sigInvalid:
		return "signature invalid: " + r.why
	case sigUnchecked:
		return "signed, not checked: pin its keys with jwks_url or card_key_file"
	}
	return "unsigned"
}

// cardTrust checks an agent's card against its pinned keys. The key set
// is fetched once and again when a signature names a key it lacks (key
// rotation), at most once a minute. Safe for concurrent use.
type cardTrust struct {
	keys CardKeys
	hc   *http.Client

	mu      sync.Mutex
	set     *jose.JSONWebKeySet
	fetched time.Time
}

func newCardTrust(k CardKeys, hc *http.Client) *cardTrust {
	return &cardTrust{keys: k, hc: hc}
}

// pinned reports whether any key is configured.
func (t *cardTrust) pinned() bool { return t.keys.JWKSURL != "" || t.keys.File != "" }

// check verifies raw, the card as the agent sent it, and that acted, the
// card a2atop decoded from it and acts on, is the card that verified
// (card_exact.go).
func (t *cardTrust) check(ctx context.Context, raw []byte, acted *a2a.AgentCard) sigResult {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(raw, &doc); err != nil {
		return sigResult{state: sigInvalid, why: "the card is not a JSON object"}
	}
	var sigs []struct {
		Protected string `json:"protected"`
		Signature string `json:"signature"`
	}
	if s, ok := doc["signatures"]; ok {
		if err := json.Unmarshal(s, &sigs); err != nil {
			return sigResult{state: sigInvalid, why: "its signatures are not a list of JWS signatures"}
		}
	}
	if len(sigs) == 0 {
		return sigResult{state: sigUnsigned}
	}
	if !t.pinned() {
		return sigResult{state: sigUnchecked}
	}
	if err := strictMembers(raw); err != nil {
		return sigResult{state: sigInvalid, why: err.Error()}
	}
	payloads, err := canonicalPayloads(raw)
	if err != nil {
		return sigResult{state: sigInvalid, why: err.Error()}
	}
	last := sigResult{state: sigInvalid, why: "no signature verified"}
	for _, s := range sigs {
		r, payload := t.verifyOne(ctx, s.Protected, s.Signature, payloads)
		if r.state == sigValid {
			return sameAsSigned(r, acted, payload)
		}
		last = r
	}
	return last
}

// sameAsSigned is r, or sigInvalid when acted is not the card payload
// (the form that verified) says.
func sameAsSigned(r sigResult, acted *a2a.AgentCard, payload []byte) sigResult {
	diff, err := sameCard(acted, payload)
	switch {
	case err != nil:
		return sigResult{state: sigInvalid, kid: r.kid, why: err.Error()}
	case diff != "":
		return sigResult{state: sigInvalid, kid: r.kid, why: fmt.Sprintf("the card as read differs from the card signed by key %q in %q: "+
			"what a2atop reads there is not what the signature covers (members added, in another letter case or empty)", r.kid, diff)}
	}
	return r
}

// verifyOne checks one signature against every canonical payload; when
// it verifies it returns the payload it verified.
func (t *cardTrust) verifyOne(ctx context.Context, protected, signature string, payloads [][]byte) (sigResult, []byte) {
	hdr, err := base64.RawURLEncoding.DecodeString(protected)
	var h struct {
		Alg string `json:"alg"`
		Kid string `json:"kid"`
	}
	if err != nil || json.Unmarshal(hdr, &h) != nil {
		return sigResult{state: sigInvalid, why: "a signature's protected header is not base64url JSON"}, nil
	}
	keys, err := t.keysFor(ctx, h.Kid)
	if err != nil {
		return sigResult{state: sigInvalid, kid: h.Kid, why: err.Error()}, nil
	}
	if len(keys) == 0 {
		return sigResult{state: sigInvalid, kid: h.Kid, why: fmt.Sprintf("signed with key %q, which is not among the pinned keys", h.Kid)}, nil
	}
	for _, p := range payloads {
		jws, err := jose.ParseDetached(protected+".."+signature, p, allowedAlgs)
		if err != nil {
			return sigResult{state: sigInvalid, kid: h.Kid, why: "a signature is not a JWS of a known algorithm (" + h.Alg + ")"}, nil
		}
		for _, k := range keys {
			if _, err := jws.Verify(k); err == nil {
				return sigResult{state: sigValid, kid: cmp.Or(h.Kid, k.KeyID)}, p
			}
		}
	}
	return sigResult{state: sigInvalid, kid: h.Kid, why: fmt.Sprintf("the card does not match its signature by key %q: it was changed after signing, or signed with another key", h.Kid)}, nil
}

// allowedAlgs are the JWS algorithms a card may be signed with.
var allowedAlgs = []jose.SignatureAlgorithm{jose.ES256, jose.ES384, jose.ES512, jose.RS256, jose.RS384, jose.RS512,
	jose.PS256, jose.PS384, jose.PS512, jose.EdDSA}

// keysFor returns the pinned keys for kid (every key when kid is ""),
// fetching the key set again once when kid is unknown.
func (t *cardTrust) keysFor(ctx context.Context, kid string) ([]jose.JSONWebKey, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.set == nil || (kid != "" && len(t.set.Key(kid)) == 0 && time.Since(t.fetched) > time.Minute) {
		set, err := t.load(ctx)
		if err != nil {
			if t.set == nil {
				return nil, err
			}
		} else {
			t.set, t.fetched = set, time.Now()
		}
	}
	if kid == "" {
		return t.set.Keys, nil
	}
	keys := t.set.Key(kid)
	if len(keys) == 0 && t.keys.File != "" && len(t.set.Keys) == 1 && t.set.Keys[0].KeyID == "" {
		keys = t.set.Keys // a single PEM key has no id: it stands for whichever the card names
	}
	return keys, nil
}

// load reads the pinned key set.
func (t *cardTrust) load(ctx context.Context) (*jose.JSONWebKeySet, error) {
	if t.keys.File != "" {
		b, err := secretfile.Read(t.keys.File)
		if err != nil {
			return nil, fmt.Errorf("cannot read card_key_file %s: %v", t.keys.File, plainErr(err))
		}
		return parseKeys(b)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.keys.JWKSURL, nil)
	if err != nil {
		return nil, fmt.Errorf("jwks_url %s: %v", credential.ShownURL(t.keys.JWKSURL), err)
	}
	resp, err := t.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("cannot fetch the pinned keys at %s: %v", credential.ShownURL(t.keys.JWKSURL), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the pinned keys at %s: HTTP %d", credential.ShownURL(t.keys.JWKSURL), resp.StatusCode)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("the pinned keys at %s: %v", credential.ShownURL(t.keys.JWKSURL), err)
	}
	return parseKeys(b)
}

// parseKeys reads a JWK Set, a single JWK or a PEM public key.
func parseKeys(b []byte) (*jose.JSONWebKeySet, error) {
	b = bytes.TrimSpace(b)
	if blk, _ := pem.Decode(b); blk != nil {
		pub, err := x509.ParsePKIXPublicKey(blk.Bytes)
		if err != nil {
			return nil, fmt.Errorf("the pinned PEM key is not a public key: %v", err)
		}
		return &jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: pub}}}, nil
	}
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(b, &set); err == nil && len(set.Keys) > 0 {
		return publicOnly(&set), nil
	}
	var one jose.JSONWebKey
	if err := json.Unmarshal(b, &one); err == nil && one.Key != nil {
		return publicOnly(&jose.JSONWebKeySet{Keys: []jose.JSONWebKey{one}}), nil
	}
	return nil, errors.New("the pinned keys are neither a JWK Set, a JWK nor a PEM public key")
}

// publicOnly keeps the public half of each key.
func publicOnly(set *jose.JSONWebKeySet) *jose.JSONWebKeySet {
	out := &jose.JSONWebKeySet{}
	for _, k := range set.Keys {
		out.Keys = append(out.Keys, k.Public())
	}
	return out
}

func plainErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// canonicalPayloads are the forms a signer may have signed: the card as
// received without "signatures"; the same with default values removed as
// the card's protobuf form drops them (the spec's rule for a card rebuilt
// from it: the entries of maps are kept); and with every default value
// removed, maps' entries too; each in RFC 8785 canonical form, without
// repeats. What a form that verified leaves out, sameCard holds against
// the card a2atop reads.
func canonicalPayloads(raw []byte) ([][]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return nil, errors.New("the card is not a JSON object")
	}
	delete(doc, "signatures")
	var out [][]byte
	for _, d := range []map[string]any{doc, stripObject(doc, true), withoutDefaults(doc)} {
		b, err := json.Marshal(d)
		if err != nil {
			return nil, err
		}
		c, err := jcs.Transform(b)
		if err != nil {
			return nil, fmt.Errorf("the card cannot be canonicalized: %v", err)
		}
		if !slices.ContainsFunc(out, func(p []byte) bool { return bytes.Equal(p, c) }) {
			out = append(out, c)
		}
	}
	return out, nil
}

// requiredFields are the card's REQUIRED fields (of the card, its
// interfaces, skills and provider): kept even with a default value.
var requiredFields = map[string]bool{
	"name": true, "description": true, "supportedInterfaces": true, "version": true, "capabilities": true,
	"defaultInputModes": true, "defaultOutputModes": true, "skills": true, "id": true, "tags": true,
	"url": true, "protocolBinding": true, "protocolVersion": true, "organization": true,
}

// optionalFields are the fields with explicit presence: present means
// set, even to false, or, for the mTLS security scheme (a message of a
// oneof, with no required field), even when empty.
var optionalFields = map[string]bool{"streaming": true, "pushNotifications": true, "extendedAgentCard": true,
	"mtlsSecurityScheme": true}

// mapMembers are the members whose value is a map (a protobuf map field,
// or in A2A 0.3's "security" a list of them): protobuf's JSON keeps every
// entry of a map, even one with a default value
// ("securityRequirements":[{"schemes":{"key":[]}}]).
// structMembers are free-form JSON (google.protobuf.Struct), kept as is.
var (
	mapMembers    = map[string]bool{"securitySchemes": true, "schemes": true, "scopes": true, "security": true}
	structMembers = map[string]bool{"params": true}
)

// withoutDefaults is a copy of v without the members whose value is a
// default (null, "", 0, false, [], {}) unless they are required or
// optional fields, applied from the leaves up.
func withoutDefaults(v map[string]any) map[string]any { return stripObject(v, false) }

// stripObject is withoutDefaults; with proto, the entries of maps and
// free-form JSON are kept as protobuf's JSON keeps them.
func stripObject(v map[string]any, proto bool) map[string]any {
	out := make(map[string]any, len(v))
	for k, x := range v {
		switch {
		case proto && structMembers[k]:
		case proto && mapMembers[k]:
			x = keepEntries(x, proto)
		default:
			x = stripValue(x, proto)
		}
		if !requiredFields[k] && !optionalFields[k] && isDefault(x) {
			continue
		}
		out[k] = x
	}
	return out
}

// keepEntries strips the values of a map's entries (or of each map in a
// list) and keeps every entry.
func keepEntries(x any, proto bool) any {
	switch x := x.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = stripValue(e, proto)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = keepEntries(e, proto)
		}
		return out
	}
	return x
}

func stripValue(x any, proto bool) any {
	switch x := x.(type) {
	case map[string]any:
		return stripObject(x, proto)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = stripValue(e, proto)
		}
		return out
	}
	return x
}

func isDefault(x any) bool {
	switch x := x.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case bool:
		return !x
	case json.Number:
		f, err := x.Float64()
		return err == nil && f == 0
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

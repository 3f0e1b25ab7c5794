package a2aclient

import (
	"bytes"
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
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/gowebpki/jcs"

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

// check verifies raw, the card as the agent sent it.
func (t *cardTrust) check(ctx context.Context, raw []byte) sigResult {
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
	payloads, err := canonicalPayloads(raw)
	if err != nil {
		return sigResult{state: sigInvalid, why: err.Error()}
	}
	last := sigResult{state: sigInvalid, why: "no signature verified"}
	for _, s := range sigs {
		r := t.verifyOne(ctx, s.Protected, s.Signature, payloads)
		if r.state == sigValid {
			return r
		}
		last = r
	}
	return last
}

// verifyOne checks one signature against every canonical payload.
func (t *cardTrust) verifyOne(ctx context.Context, protected, signature string, payloads [][]byte) sigResult {
	hdr, err := base64.RawURLEncoding.DecodeString(protected)
	var h struct {
		Alg string `json:"alg"`
		Kid string `json:"kid"`
	}
	if err != nil || json.Unmarshal(hdr, &h) != nil {
		return sigResult{state: sigInvalid, why: "a signature's protected header is not base64url JSON"}
	}
	keys, err := t.keysFor(ctx, h.Kid)
	if err != nil {
		return sigResult{state: sigInvalid, kid: h.Kid, why: err.Error()}
	}
	if len(keys) == 0 {
		return sigResult{state: sigInvalid, kid: h.Kid, why: fmt.Sprintf("signed with key %q, which is not among the pinned keys", h.Kid)}
	}
	for _, p := range payloads {
		jws, err := jose.ParseDetached(protected+".."+signature, p, allowedAlgs)
		if err != nil {
			return sigResult{state: sigInvalid, kid: h.Kid, why: "a signature is not a JWS of a known algorithm (" + h.Alg + ")"}
		}
		for _, k := range keys {
			if _, err := jws.Verify(k); err == nil {
				return sigResult{state: sigValid, kid: orDefault(h.Kid, k.KeyID)}
			}
		}
	}
	return sigResult{state: sigInvalid, kid: h.Kid, why: fmt.Sprintf("the card does not match its signature by key %q: it was changed after signing, or signed with another key", h.Kid)}
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
		return nil, fmt.Errorf("jwks_url %s: %v", shownURL(t.keys.JWKSURL), err)
	}
	resp, err := t.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("cannot fetch the pinned keys at %s: %v", shownURL(t.keys.JWKSURL), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the pinned keys at %s: HTTP %d", shownURL(t.keys.JWKSURL), resp.StatusCode)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("the pinned keys at %s: %v", shownURL(t.keys.JWKSURL), err)
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
// received without "signatures", and the same with default values
// removed (the spec's rule for a card rebuilt from its protobuf form),
// each in RFC 8785 canonical form.
func canonicalPayloads(raw []byte) ([][]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return nil, errors.New("the card is not a JSON object")
	}
	delete(doc, "signatures")
	var out [][]byte
	for _, d := range []map[string]any{doc, withoutDefaults(doc)} {
		b, err := json.Marshal(d)
		if err != nil {
			return nil, err
		}
		c, err := jcs.Transform(b)
		if err != nil {
			return nil, fmt.Errorf("the card cannot be canonicalized: %v", err)
		}
		if len(out) == 0 || !bytes.Equal(out[0], c) {
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
// set, even to false.
var optionalFields = map[string]bool{"streaming": true, "pushNotifications": true, "extendedAgentCard": true}

// withoutDefaults is a copy of v without the members whose value is a
// default (null, "", 0, false, [], {}) unless they are required or
// optional fields, applied from the leaves up.
func withoutDefaults(v map[string]any) map[string]any {
	out := make(map[string]any, len(v))
	for k, x := range v {
		x = stripValue(x)
		if !requiredFields[k] && !optionalFields[k] && isDefault(x) {
			continue
		}
		out[k] = x
	}
	return out
}

func stripValue(x any) any {
	switch x := x.(type) {
	case map[string]any:
		return withoutDefaults(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = stripValue(e)
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

// Package cardtest signs agent cards as their publishers do, for the
// tests of the card signature checks: a detached ES256 JWS over the
// card's RFC 8785 form, A2A's AgentCardSignature. It is for tests only;
// it imports the A2A SDK's types, go-jose and jcs.
package cardtest

import (
	"crypto/ecdsa"
	"encoding/json"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	jose "github.com/go-jose/go-jose/v4"
	"github.com/gowebpki/jcs"
)

// Detached signs payload with key as kid and returns the JWS's
// protected header and signature, the payload left out. typ, when not
// "", is the header's typ ("JOSE").
func Detached(t testing.TB, payload []byte, key *ecdsa.PrivateKey, kid, typ string) (protected, signature string) {
	t.Helper()
	opts := &jose.SignerOptions{}
	if typ != "" {
		opts = opts.WithType(jose.ContentType(typ))
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, opts.WithHeader("kid", kid))
	if err != nil {
		t.Fatal(err)
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	compact, err := jws.DetachedCompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	protected, signature, _ = strings.Cut(compact, "..")
	return protected, signature
}

// Sign gives card one signature, by key as kid (typ as Detached's),
// over its RFC 8785 form without signatures.
func Sign(t testing.TB, card *a2a.AgentCard, key *ecdsa.PrivateKey, kid, typ string) {
	t.Helper()
	card.Signatures = nil
	b, err := json.Marshal(card)
	if err != nil {
		t.Fatal(err)
	}
	payload, err := jcs.Transform(b)
	if err != nil {
		t.Fatal(err)
	}
	prot, sig := Detached(t, payload, key, kid, typ)
	card.Signatures = []a2a.AgentCardSignature{{Protected: prot, Signature: sig}}
}

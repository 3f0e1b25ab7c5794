package a2aclient

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"a2atop/internal/cardtest"
	"a2atop/internal/sdktest"
	"a2atop/model"
)

func ecKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// jwksServer serves the public half of keys as a JWK Set.
func jwksServer(t *testing.T, keys map[string]*ecdsa.PrivateKey) string {
	t.Helper()
	var set jose.JSONWebKeySet
	for kid, k := range keys {
		set.Keys = append(set.Keys, jose.JSONWebKey{Key: &k.PublicKey, KeyID: kid, Algorithm: "ES256", Use: "sig"})
	}
	a := sdktest.Start(t, sdktest.JSONRPC, false, func(http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _ = json.NewEncoder(w).Encode(set) })
	})
	return a.URL() + "/jwks.json"
}

// Signed, unsigned, tampered and wrongly-keyed cards are shown as such,
// against keys pinned by a JWKS URL or a key file; require_signed_card
// refuses every card that does not verify and talks to the one that does.
func TestCardSignatures(t *testing.T) {
	good, other := ecKey(t), ecKey(t)
	jwks := jwksServer(t, map[string]*ecdsa.PrivateKey{"key-1": good})
	keyFile := filepath.Join(t.TempDir(), "card-key.json")
	pub, _ := json.Marshal(jose.JSONWebKey{Key: &good.PublicKey, KeyID: "key-1"})
	if err := os.WriteFile(keyFile, pub, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		prep  func(card *a2a.AgentCard)
		words string
		ok    bool
	}{
		{"signed", func(c *a2a.AgentCard) { cardtest.Sign(t, c, good, "key-1", "JOSE") }, "signed ✓ (key key-1)", true},
		{"unsigned", func(c *a2a.AgentCard) {}, "unsigned", false},
		{"tampered", func(c *a2a.AgentCard) {
			cardtest.Sign(t, c, good, "key-1", "JOSE")
			c.SupportedInterfaces[0].URL = strings.Replace(c.SupportedInterfaces[0].URL, "/invoke", "/invoke?evil", 1)
		}, "signature invalid: the card does not match its signature", false},
		{"wrong-key", func(c *a2a.AgentCard) { cardtest.Sign(t, c, other, "key-1", "JOSE") }, "signature invalid: the card does not match its signature", false},
		{"unknown-kid", func(c *a2a.AgentCard) { cardtest.Sign(t, c, other, "key-9", "JOSE") }, `signature invalid: signed with key "key-9", which is not among the pinned keys`, false},
	} {
		for _, pin := range []string{"jwks", "file"} {
			for _, require := range []bool{false, true} {
				t.Run(tc.name+"/"+pin+map[bool]string{true: "/required"}[require], func(t *testing.T) {
					a := sdktest.Start(t, sdktest.JSONRPC, false, nil)
					a.Stop()
					tc.prep(a.Card)
					a.Start()
					id := a.CreateInStore(t, a2a.TaskStateInputRequired)
					o := fast("a", a.URL())
					o.Auth.CardKeys = CardKeys{JWKSURL: jwks, Require: require}
					if pin == "file" {
						o.Auth.CardKeys = CardKeys{File: keyFile, Require: require}
					}
					_, c := runManager(t, []AgentOptions{o}, Options{})
					if require && !tc.ok {
						c.waitFor(t, "refused in words", 5*time.Second, func(evs []model.Event) bool {
							h := lastHealth(evs, "a")
							return h != nil && strings.Contains(h.Err, "require_signed_card is set") && strings.Contains(h.Err, tc.words)
						})
						time.Sleep(100 * time.Millisecond)
						if hasTask(c.snapshot(), "a", id, "") || lastInfo(c.snapshot(), "a") != nil {
							t.Fatal("a2atop talked to an agent whose card does not verify")
						}
						return
					}
					c.waitFor(t, "the signature shown", 5*time.Second, func(evs []model.Event) bool {
						info := lastInfo(evs, "a")
						return info != nil && strings.HasPrefix(info.Signature, tc.words) && info.SignatureOK == tc.ok
					})
					c.waitFor(t, "the agent watched", 5*time.Second, func(evs []model.Event) bool { return hasTask(evs, "a", id, "") })
				})
			}
		}
	}
}

// With no key pinned a signed card is shown as not checked, and an
// unsigned one shows nothing.
func TestCardSignatureWithoutPinnedKeys(t *testing.T) {
	a := sdktest.Start(t, sdktest.JSONRPC, false, nil)
	a.Stop()
	cardtest.Sign(t, a.Card, ecKey(t), "key-1", "JOSE")
	a.Start()
	_, c := runManager(t, []AgentOptions{fast("a", a.URL())}, Options{})
	c.waitFor(t, "not checked", 5*time.Second, func(evs []model.Event) bool {
		info := lastInfo(evs, "a")
		return info != nil && strings.HasPrefix(info.Signature, "signed, not checked") && !info.SignatureOK
	})
}

// The canonical form: the spec's own example of removing default values
// (§8.4.1), and RFC 8785's ordering and number forms through jcs.
func TestCanonicalPayloads(t *testing.T) {
	in := `{"name":"Example Agent","description":"","capabilities":{"streaming":false,"pushNotifications":false,"extensions":[]},"skills":[],"signatures":[{"protected":"x","signature":"y"}]}`
	got, err := canonicalPayloads([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"capabilities":{"pushNotifications":false,"streaming":false},"description":"","name":"Example Agent","skills":[]}`
	if len(got) != 2 || string(got[1]) != want {
		t.Errorf("without defaults = %q, want %q (the spec's example)", got, want)
	}
	for _, tc := range []struct{ in, want string }{
		// RFC 8785 §3.2.2 and §3.2.3: numbers in ES6 form, keys sorted by UTF-16 code units.
		{`{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001]}`,
			`{"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27]}`},
		{`{"\u20ac":"Euro Sign","\r":"Carriage Return","\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","\ud83d\ude00":"Emoji: Grinning Face","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis"}`,
			"{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u0080\":\"Control\",\"ö\":\"Latin Small Letter O With Diaeresis\",\"€\":\"Euro Sign\",\"😀\":\"Emoji: Grinning Face\",\"\ufb33\":\"Hebrew Letter Dalet With Dagesh\"}"},
	} {
		got, err := canonicalPayloads([]byte(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		if string(got[0]) != tc.want {
			t.Errorf("canonical(%s) = %s, want %s", tc.in, got[0], tc.want)
		}
	}
}

// The extended card, when the card says there is one: fetched with our
// credentials, and what it adds is said.
func TestExtendedCardAdds(t *testing.T) {
	a := sdktest.Start(t, sdktest.JSONRPC, false, sdktest.RequireBearer("tok-ext"))
	a.Stop()
	a.Card.Capabilities.ExtendedAgentCard = true
	a.Card.Skills = []a2a.AgentSkill{{ID: "status", Name: "status"}}
	ext := *a.Card
	ext.Skills = []a2a.AgentSkill{{ID: "status", Name: "status"}, {ID: "deploy", Name: "deploy"}, {ID: "rollback", Name: "rollback"}}
	a.Extended = &ext
	a.Start()
	o := fast("a", a.URL())
	o.Headers = []Header{{Name: "Authorization", Value: "Bearer tok-ext"}}
	_, c := runManager(t, []AgentOptions{o}, Options{})
	c.waitFor(t, "what the extended card adds", 5*time.Second, func(evs []model.Event) bool {
		info := lastInfo(evs, "a")
		return info != nil && info.Extended == "+2 skills: deploy, rollback"
	})
}

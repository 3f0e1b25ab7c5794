package a2aclient

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/gowebpki/jcs"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"a2atop/internal/cardtest"
	"a2atop/internal/sdktest"
	"a2atop/model"
)

// serveCardBytes makes the agent answer its card path with body, byte
// for byte, as a tampering server would.
func serveCardBytes(body *[]byte) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != a2asrv.WellKnownAgentCardPath {
				next.ServeHTTP(w, r)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(*body)
		})
	}
}

// pinKeyFile writes the public half of key as a JWK with kid and returns its path.
func pinKeyFile(t *testing.T, key *ecdsa.PrivateKey, kid string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "card-key.json")
	pub, _ := json.Marshal(jose.JSONWebKey{Key: &key.PublicKey, KeyID: kid})
	if err := os.WriteFile(path, pub, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// cardTamperings are changes that leave a card's signature as it was
// (the verifier drops members with default values from the canonical
// form it checks) and change what Go's case-insensitive decoder reads,
// or make the verifier and the decoder read members differently.
var cardTamperings = []struct {
	name string
	edit func(b []byte) []byte
}{
	{"name-case-variant", appendMember(`"Name":""`)},
	{"interfaces-case-variant", appendMember(`"SupportedInterfaces":[]`)},
	{"schemes-case-variant", appendMember(`"SecuritySchemes":{}`)},
	{"schemes-long-s", appendMember(`"ſecuritySchemes":{}`)}, // ſ folds to s for encoding/json
	{"nested-case-variant", replaceOnce(`"streaming":true`, `"streaming":true,"Streaming":false`)},
	{"empty-scheme-added", replaceOnce(`"securitySchemes":{`, `"securitySchemes":{"x":{"mtlsSecurityScheme":{}},`)},
	{"duplicate-member", replaceOnce(`{`, `{"name":"someone else",`)},
	{"duplicate-nested-member", replaceOnce(`"protocolBinding":"JSONRPC"`, `"protocolBinding":"HTTP+JSON","protocolBinding":"JSONRPC"`)},
}

func appendMember(m string) func([]byte) []byte {
	return func(b []byte) []byte {
		b = bytes.TrimSpace(b)
		return append(b[:len(b)-1:len(b)-1], ","+m+"}"...)
	}
}

func replaceOnce(old, repl string) func([]byte) []byte {
	return func(b []byte) []byte {
		if !bytes.Contains(b, []byte(old)) {
			panic("tampering does not apply: no " + old)
		}
		return bytes.Replace(b, []byte(old), []byte(repl), 1)
	}
}

// signedTestCard is the fixture agent's card with an API key scheme,
// streaming, signed with key as kid "k1" over its form without default
// values (the spec's rule, which signers of cards rebuilt from protobuf
// follow), in the JSON the agent serves.
func signedTestCard(t *testing.T, a *sdktest.Agent, key *ecdsa.PrivateKey) []byte {
	t.Helper()
	a.Card.Capabilities.Streaming = true
	a.Card.SecuritySchemes = a2a.NamedSecuritySchemes{"key": a2a.APIKeySecurityScheme{Location: a2a.APIKeySecuritySchemeLocationHeader, Name: "X-Api-Key"}}
	a.Card.SecurityRequirements = a2a.SecurityRequirementsOptions{{"key": {}}}
	a.Card.Signatures = nil
	b, err := json.Marshal(a.Card)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return signCardJSON(t, doc, key, "k1")
}

// A validly signed card with members added that the signature does not
// cover (case variants with empty values, duplicates, at any depth) is
// "signature invalid", not "signed ✓" beside a card that has lost its
// name, its scheme or its interfaces; with require_signed_card a2atop
// does not talk to it. Harmless re-serialization (indentation, member
// order) still verifies.
func TestSignedCardChangedAfterVerification(t *testing.T) {
	key := ecKey(t)
	keyFile := pinKeyFile(t, key, "k1")
	cases := append([]struct {
		name string
		edit func(b []byte) []byte
	}{{"reindented", func(b []byte) []byte {
		var out bytes.Buffer
		_ = json.Indent(&out, b, "", "   ")
		return out.Bytes()
	}}}, cardTamperings...)
	for _, tc := range cases {
		for _, require := range []bool{false, true} {
			t.Run(tc.name+map[bool]string{true: "/required"}[require], func(t *testing.T) {
				var body []byte
				a := sdktest.Start(t, sdktest.JSONRPC, true, serveCardBytes(&body))
				body = tc.edit(signedTestCard(t, a, key))
				id := a.CreateInStore(t, a2a.TaskStateInputRequired)
				o := fast("a", a.URL())
				o.Headers = []Header{{Name: "X-Api-Key", Value: "key-1"}}
				o.Auth.CardKeys = CardKeys{File: keyFile, Require: require}
				_, c := runManager(t, []AgentOptions{o}, Options{})
				if tc.name == "reindented" {
					c.waitFor(t, "still signed", 5*time.Second, func(evs []model.Event) bool {
						info := lastInfo(evs, "a")
						return info != nil && info.Signature == "signed ✓ (key k1)" && info.SignatureOK
					})
					c.waitFor(t, "watched", 5*time.Second, func(evs []model.Event) bool { return hasTask(evs, "a", id, "") })
					return
				}
				if require {
					c.waitFor(t, "refused in words", 5*time.Second, func(evs []model.Event) bool {
						h := lastHealth(evs, "a")
						return h != nil && strings.Contains(h.Err, "require_signed_card is set") && strings.Contains(h.Err, "signature invalid")
					})
					time.Sleep(100 * time.Millisecond)
					if hasTask(c.snapshot(), "a", id, "") || lastInfo(c.snapshot(), "a") != nil {
						t.Fatalf("a2atop talked to an agent whose card changed after signing:\n%s", dump(c.snapshot()))
					}
					return
				}
				c.waitFor(t, "shown as invalid", 5*time.Second, func(evs []model.Event) bool {
					info := lastInfo(evs, "a")
					h := lastHealth(evs, "a")
					return (info != nil && strings.HasPrefix(info.Signature, "signature invalid: ") && !info.SignatureOK) ||
						(h != nil && strings.Contains(h.Err, "no compatible transports") && info == nil) // no interface left
				})
				if info := lastInfo(c.snapshot(), "a"); info != nil && info.SignatureOK {
					t.Fatalf("shown as signed: %+v", info)
				}
			})
		}
	}
}

// signCardJSON signs a card given as JSON members over its form without
// default values as its protobuf form drops them, and returns what it
// serves.
func signCardJSON(t *testing.T, doc map[string]any, key *ecdsa.PrivateKey, kid string) []byte {
	t.Helper()
	delete(doc, "signatures")
	b, err := json.Marshal(stripObject(doc, true))
	if err != nil {
		t.Fatal(err)
	}
	payload, err := jcs.Transform(b)
	if err != nil {
		t.Fatal(err)
	}
	prot, sig := cardtest.Detached(t, payload, key, kid, "JOSE")
	doc["signatures"] = []map[string]string{{"protected": prot, "signature": sig}}
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A card in A2A 0.3's shape goes through the SDK's conversion to 1.0: a
// signed one verifies, and one changed after signing so that the
// conversion reads it otherwise ("Url":"" drops the interface) does not.
func TestSigned03CardChangedAfterVerification(t *testing.T) {
	key := ecKey(t)
	keyFile := pinKeyFile(t, key, "k1")
	for _, tamper := range []string{"", `"Url":""`, `"PreferredTransport":""`, `"ProtocolVersion":""`} {
		t.Run("tamper="+tamper, func(t *testing.T) {
			var body []byte
			a := sdktest.Start(t, sdktest.Legacy, false, serveCardBytes(&body))
			cj, err := a2av0.NewStaticAgentCardProducer(a.Card).(interface {
				CardJSON(context.Context) ([]byte, error)
			}).CardJSON(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var doc map[string]any
			if err := json.Unmarshal(cj, &doc); err != nil {
				t.Fatal(err)
			}
			delete(doc, "supportedInterfaces") // as an agent of 0.3 serves it
			body = signCardJSON(t, doc, key, "k1")
			if tamper != "" {
				body = appendMember(tamper)(body)
			}
			o := fast("a", a.URL())
			o.Auth.CardKeys = CardKeys{File: keyFile, Require: true}
			_, c := runManager(t, []AgentOptions{o}, Options{})
			if tamper == "" {
				c.waitFor(t, "signed and converted", 5*time.Second, func(evs []model.Event) bool {
					info := lastInfo(evs, "a")
					return info != nil && info.SignatureOK && info.ProtocolVersion == "0.3" && strings.HasSuffix(info.InterfaceURL, "/invoke")
				})
				return
			}
			c.waitFor(t, "refused in words", 5*time.Second, func(evs []model.Event) bool {
				h := lastHealth(evs, "a")
				return h != nil && strings.Contains(h.Err, "require_signed_card is set") && strings.Contains(h.Err, "signature invalid")
			})
		})
	}
}

// With require_signed_card the extended card must verify too: one that
// is unsigned, or changed after signing, is not used (what it would add
// is not shown); a signed one is. Without it, what the extended card
// adds is shown with its signature's words.
func TestExtendedCardMustVerify(t *testing.T) {
	key := ecKey(t)
	keyFile := pinKeyFile(t, key, "k1")
	for _, tc := range []string{"signed", "unsigned", "tampered", "tampered-lax"} {
		t.Run(tc, func(t *testing.T) {
			a := sdktest.Start(t, sdktest.JSONRPC, false, sdktest.RequireBearer("tok-ext"))
			a.Stop()
			a.Card.Capabilities.ExtendedAgentCard = true
			a.Card.Skills = []a2a.AgentSkill{{ID: "status", Name: "status", Tags: []string{"ops"}}}
			ext := *a.Card
			ext.Skills = []a2a.AgentSkill{{ID: "status", Name: "status", Tags: []string{"ops"}}, {ID: "deploy", Name: "deploy", Tags: []string{"ops"}}}
			cardtest.Sign(t, a.Card, key, "k1", "JOSE")
			switch tc {
			case "signed":
				cardtest.Sign(t, &ext, key, "k1", "JOSE")
			case "tampered", "tampered-lax":
				cardtest.Sign(t, &ext, key, "k1", "JOSE")
				ext.Skills = append(ext.Skills, a2a.AgentSkill{ID: "wipe", Name: "wipe", Tags: []string{"ops"}})
			}
			a.Extended = &ext
			a.Start()
			o := fast("a", a.URL())
			o.Headers = []Header{{Name: "Authorization", Value: "Bearer tok-ext"}}
			o.Auth.CardKeys = CardKeys{File: keyFile, Require: tc != "tampered-lax"}
			_, c := runManager(t, []AgentOptions{o}, Options{})
			want := map[string]string{
				"tampered-lax": "+2 skills: deploy, wipe (signature invalid: the card does not match its signature",
				"signed":       "+1 skill: deploy",
				"unsigned":     "not used: the extended card's signature does not verify (unsigned) and require_signed_card is set",
				"tampered":     "not used: the extended card's signature does not verify (signature invalid: ",
			}[tc]
			c.waitFor(t, "the extended card judged", 5*time.Second, func(evs []model.Event) bool {
				info := lastInfo(evs, "a")
				return info != nil && info.SignatureOK && strings.HasPrefix(info.Extended, want)
			})
			if info := lastInfo(c.snapshot(), "a"); tc != "tampered-lax" && (strings.Contains(info.Extended, "wipe") || (tc != "signed" && strings.Contains(info.Extended, "deploy"))) {
				t.Fatalf("an extended card that does not verify was used: %q", info.Extended)
			}
		})
	}
}

// foldName folds two names alike exactly when encoding/json would match
// one against the other (strings.EqualFold), and strictMembers refuses
// what is not JSON.
func FuzzStrictMembers(f *testing.F) {
	f.Add(`{"name":"a","Name":""}`, "name", "NAME")
	f.Add(`{"a":{"b":[{"c":1,"c":2}]}}`, "ſkills", "skills")
	f.Add(`{"k":"\u212a"}`, "K", "\u212a")
	f.Fuzz(func(t *testing.T, doc, a, b string) {
		if (foldName(a) == foldName(b)) != strings.EqualFold(a, b) {
			t.Fatalf("foldName(%q)=%q, foldName(%q)=%q; EqualFold=%v", a, foldName(a), b, foldName(b), strings.EqualFold(a, b))
		}
		if !json.Valid([]byte(doc)) && strictMembers([]byte(doc)) == nil {
			t.Fatalf("strictMembers accepted %q, which is not JSON", doc)
		}
	})
}

// A signer that drops every default value, the entries of maps too,
// leaves a security requirement's empty scope list out of what it signs:
// a requirement added with one ("other":[]) leaves that signature valid.
// The card a2atop reads is then not the card signed, and the words name
// where.
func TestSignedCardReadOtherwiseThanSigned(t *testing.T) {
	key := ecKey(t)
	keyFile := pinKeyFile(t, key, "k1")
	var body []byte
	a := sdktest.Start(t, sdktest.JSONRPC, true, serveCardBytes(&body))
	signedTestCard(t, a, key) // sets the scheme and the requirement
	a.Card.Signatures = nil
	b, _ := json.Marshal(a.Card)
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	payload, err := jcs.Transform(mustJSON(t, withoutDefaults(doc)))
	if err != nil {
		t.Fatal(err)
	}
	prot, sig := cardtest.Detached(t, payload, key, "k1", "JOSE")
	doc["signatures"] = []map[string]string{{"protected": prot, "signature": sig}}
	body = replaceOnce(`"schemes":{"key":[]}`, `"schemes":{"key":[],"other":[]}`)(mustJSON(t, doc))
	o := fast("a", a.URL())
	o.Auth.CardKeys = CardKeys{File: keyFile}
	_, c := runManager(t, []AgentOptions{o}, Options{})
	c.waitFor(t, "shown as invalid, naming where", 5*time.Second, func(evs []model.Event) bool {
		info := lastInfo(evs, "a")
		return info != nil && !info.SignatureOK &&
			strings.HasPrefix(info.Signature, `signature invalid: the card as read differs from the card signed by key "k1" in "card.securityRequirements[0]"`)
	})
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

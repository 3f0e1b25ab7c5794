package a2aclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/gowebpki/jcs"
)

// The card a2atop acts on must be the card whose signature verified.
// The verifier reads the card's members by their exact names and drops
// those with default values from the form it checks; Go's decoder (the
// SDK's, for both card shapes) matches names ignoring letter case and
// keeps the last of two equal names. A member added in another case
// with an empty value ("Name":"") leaves the signature valid and empties
// the field the decoder fills. So a signed card is refused when
//   - two members of one object have the same name, or names that differ
//     only in letter case (Unicode simple folding, as encoding/json
//     folds: "ſ" is "s"), at any depth (strictMembers); or
//   - the card as decoded from the bytes received differs from the card
//     decoded from the canonical form that verified (sameCard): what
//     a2atop acts on is then not what was signed.

// strictMembers reports the first object in raw, at any depth, with a
// duplicate member or members whose names differ only in letter case.
func strictMembers(raw []byte) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := walkValue(dec, "the card"); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("the card has more than one JSON value")
	}
	return nil
}

// walkValue reads one value from dec, checking the members of every
// object in it; path names where it is ("the card",
// "card.supportedInterfaces[0]").
func walkValue(dec *json.Decoder, path string) error {
	tok, err := dec.Token()
	if err != nil {
		return errors.New("the card is not JSON")
	}
	switch tok {
	case json.Delim('{'):
		return walkObject(dec, path)
	case json.Delim('['):
		for i := 0; dec.More(); i++ {
			if err := walkValue(dec, path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
		_, err = dec.Token() // ']'
		return err
	}
	return nil
}

func walkObject(dec *json.Decoder, path string) error {
	seen := map[string]string{} // folded name -> name as written
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return errors.New("the card is not JSON")
		}
		name, _ := tok.(string)
		switch prev, ok := seen[foldName(name)]; {
		case ok && prev == name:
			return fmt.Errorf("%s has %q twice", path, name)
		case ok:
			return fmt.Errorf("%s has both %q and %q (names that differ only in letter case)", path, prev, name)
		}
		seen[foldName(name)] = name
		if err := walkValue(dec, strings.Replace(path, "the card", "card", 1)+"."+name); err != nil {
			return err
		}
	}
	_, err := dec.Token() // '}'
	return err
}

// foldName maps every rune of s to the smallest rune of its Unicode
// simple-folding orbit, so that two names fold alike exactly when
// strings.EqualFold (and encoding/json's field matching) holds them equal.
func foldName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == utf8.RuneError {
			b.WriteRune(r)
			continue
		}
		min := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f < min {
				min = f
			}
		}
		b.WriteRune(min)
	}
	return b.String()
}

// sameCard compares the card a2atop decoded from the bytes it received
// with the card decoded from payload, the canonical form that verified,
// by their JSON with every default value removed (a member absent and a
// member empty are the same to a2atop). It returns the first member
// that differs, "" when they are the same.
func sameCard(acted *a2a.AgentCard, payload []byte) (string, error) {
	verified, err := a2av0.NewAgentCardParser()(payload)
	if err != nil {
		return "", fmt.Errorf("the signed form of the card does not parse: %v", err)
	}
	a, err := semanticForm(acted)
	if err != nil {
		return "", err
	}
	v, err := semanticForm(verified)
	if err != nil {
		return "", err
	}
	if bytes.Equal(a.canon, v.canon) {
		return "", nil
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range a.doc {
			if !yield(k) {
				return
			}
		}
		for k := range v.doc {
			if _, ok := a.doc[k]; !ok && !yield(k) {
				return
			}
		}
	})
	for _, k := range keys {
		x, _ := json.Marshal(a.doc[k])
		y, _ := json.Marshal(v.doc[k])
		if !bytes.Equal(x, y) {
			return k, nil
		}
	}
	return "the card", nil
}

// semantic is a card as a2atop reads it: its members without default
// values and without signatures, and their canonical JSON.
type semantic struct {
	doc   map[string]any
	canon []byte
}

func semanticForm(c *a2a.AgentCard) (semantic, error) {
	cc := *c
	cc.Signatures = nil
	b, err := json.Marshal(&cc)
	if err != nil {
		return semantic{}, fmt.Errorf("the card cannot be encoded again: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return semantic{}, err
	}
	doc = withoutAnyDefaults(doc)
	b, err = json.Marshal(doc)
	if err != nil {
		return semantic{}, err
	}
	canon, err := jcs.Transform(b)
	if err != nil {
		return semantic{}, fmt.Errorf("the card cannot be canonicalized: %v", err)
	}
	return semantic{doc: doc, canon: canon}, nil
}

// withoutAnyDefaults is withoutDefaults that keeps no member for being
// required or optional: only what differs from a default value is kept.
func withoutAnyDefaults(v map[string]any) map[string]any {
	out := make(map[string]any, len(v))
	for k, x := range v {
		if x = stripAny(x); !isDefault(x) {
			out[k] = x
		}
	}
	return out
}

func stripAny(x any) any {
	switch x := x.(type) {
	case map[string]any:
		return withoutAnyDefaults(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = stripAny(e)
		}
		return out
	}
	return x
}

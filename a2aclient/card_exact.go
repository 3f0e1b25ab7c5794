package a2aclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
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
// field by field (Go values: an absent list or map is an empty one, an
// absent object is not an empty one; free-form JSON, such as an
// extension's params, compared without its default values, as the
// canonical form drops them). It returns the first field that differs,
// "" when they are the same.
func sameCard(acted *a2a.AgentCard, payload []byte) (string, error) {
	verified, err := a2av0.NewAgentCardParser()(payload)
	if err != nil {
		return "", fmt.Errorf("the signed form of the card does not parse: %v", err)
	}
	a, v := *acted, *verified
	a.Signatures, v.Signatures = nil, nil
	return diffValue(reflect.ValueOf(a), reflect.ValueOf(v), "card"), nil
}

var anyType = reflect.TypeFor[any]()

// diffValue is the path of the first difference between a and b, two
// values of one type; "" when there is none.
func diffValue(a, b reflect.Value, path string) string {
	switch a.Kind() {
	case reflect.Interface, reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return diffIf(a.IsNil() != b.IsNil(), path)
		}
		if a.Kind() == reflect.Interface && a.Elem().Type() != b.Elem().Type() {
			return path
		}
		return diffValue(a.Elem(), b.Elem(), path)
	case reflect.Struct:
		for i := range a.NumField() {
			f := a.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			if d := diffValue(a.Field(i), b.Field(i), path+"."+jsonName(f)); d != "" {
				return d
			}
		}
		return ""
	case reflect.Slice:
		if a.Len() != b.Len() {
			return path
		}
		for i := range a.Len() {
			if d := diffValue(a.Index(i), b.Index(i), path+"["+strconv.Itoa(i)+"]"); d != "" {
				return d
			}
		}
		return ""
	case reflect.Map:
		return diffMap(a, b, path)
	}
	return diffIf(!a.Equal(b), path)
}

// diffMap is diffValue for maps: free-form JSON (map[string]any) is
// compared without its default values.
func diffMap(a, b reflect.Value, path string) string {
	if a.Type().Elem() == anyType {
		return diffIf(!sameJSON(a.Interface(), b.Interface()), path)
	}
	if a.Len() != b.Len() {
		return path
	}
	for it := a.MapRange(); it.Next(); {
		at := path + "." + fmt.Sprint(it.Key())
		bv := b.MapIndex(it.Key())
		if !bv.IsValid() {
			return at
		}
		if d := diffValue(it.Value(), bv, at); d != "" {
			return d
		}
	}
	return ""
}

func diffIf(differ bool, path string) string {
	if differ {
		return path
	}
	return ""
}

// jsonName is the member name of a struct field.
func jsonName(f reflect.StructField) string {
	if n, _, _ := strings.Cut(f.Tag.Get("json"), ","); n != "" && n != "-" {
		return n
	}
	return f.Name
}

// sameJSON compares two free-form JSON values without their default values.
func sameJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	if err1 != nil || err2 != nil {
		return false
	}
	var u, v any
	if json.Unmarshal(x, &u) != nil || json.Unmarshal(y, &v) != nil {
		return false
	}
	x, _ = json.Marshal(stripAny(u))
	y, _ = json.Marshal(stripAny(v))
	return bytes.Equal(x, y) // encoding/json sorts map keys
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

package sanitize

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// hostileJSON holds every character EscapeJSON must escape, among text
// that must stay as it is.
const hostileJSON = "del\x7f c1\u0085\u009b\u009d nel bidi\u202e\u2066\u200f\u061c sep\u2028\u2029 fmt\u206a\ufff9 ok 日本 👍🏽 \"q\" \\ <&>"

func TestWriteJSON(t *testing.T) {
	type event struct {
		Text string         `json:"text"`
		Meta map[string]any `json:"meta"`
	}
	in := event{Text: hostileJSON, Meta: map[string]any{hostileJSON: []any{hostileJSON, 1.5}}}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, in); err != nil {
		t.Fatal(err)
	}
	line := buf.String()
	if strings.Count(line, "\n") != 1 || !strings.HasSuffix(line, "\n") {
		t.Fatalf("WriteJSON wrote %q, want one line", line)
	}
	for _, r := range line {
		if r != '\n' && (isControl(r) || isBidi(r) || isFormat(r) || r == lineSep || r == paraSep) {
			t.Errorf("WriteJSON output holds %U raw: %q", r, line)
		}
	}
	for _, esc := range []string{`\u007f`, `\u0085`, `\u009b`, `\u202e`, `\u2028`, `\u2029`, `\u206a`, `\ufff9`} {
		if !strings.Contains(line, esc) {
			t.Errorf("WriteJSON output lacks %s: %q", esc, line)
		}
	}
	var back event
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatalf("output does not decode: %v", err)
	}
	if back.Text != hostileJSON || back.Meta[hostileJSON].([]any)[0] != hostileJSON {
		t.Errorf("decoded %q, want the agent's text back exactly", back.Text)
	}
}

func TestEscapeJSONKeepsIndentAndInvalidBytes(t *testing.T) {
	b, err := json.MarshalIndent(map[string]string{"k": "a\x7fb"}, "", "\t")
	if err != nil {
		t.Fatal(err)
	}
	got := string(EscapeJSON(b))
	if want := "{\n\t\"k\": \"a\\u007fb\"\n}"; got != want {
		t.Errorf("EscapeJSON = %q, want %q", got, want)
	}
	if got := string(EscapeJSON([]byte("\"\xff\xc2\""))); got != "\"\xff\xc2\"" {
		t.Errorf("EscapeJSON(invalid) = %q, want the bytes as they were", got)
	}
}

func FuzzEscapeJSON(f *testing.F) {
	for _, s := range []string{"", hostileJSON, "\xff", "\u2028", "\x7f\x7f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		out := EscapeJSON(b)
		var back string
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("EscapeJSON(%q) = %q does not decode: %v", b, out, err)
		}
		if want := strings.ToValidUTF8(s, "\uFFFD"); utf8.ValidString(s) && back != want {
			t.Fatalf("round trip of %q gave %q", s, back)
		}
		for _, r := range string(out) {
			if isControl(r) || isBidi(r) || isFormat(r) || r == lineSep || r == paraSep {
				t.Fatalf("EscapeJSON(%q) = %q holds %U", b, out, r)
			}
		}
	})
}

package config

import (
	"strings"
	"testing"
)

func TestPushKeysValidate(t *testing.T) {
	tests := []struct {
		name, doc string
		line      int
		key, msg  string
	}{
		{"listen alone", "theme = \"dark\"\npush_listen = \"0.0.0.0:7718\"\n", 2, "push_listen", "set push_public_url too"},
		{"listen not host:port", "push_public_url = \"https://a.example.com\"\npush_listen = \"7718\"\n", 2, "push_listen", "not host:port"},
		{"bad port", "push_public_url = \"https://a.example.com\"\npush_listen = \":99999\"\n", 2, "push_listen", "not host:port"},
		{"relative", "\npush_public_url = \"/push\"\n", 2, "push_public_url", "not an absolute URL"},
		{"scheme", "push_public_url = \"ftp://a.example.com\"\n", 1, "push_public_url", "not ftp"},
		{"user", "push_public_url = \"https://me:s3cret@a.example.com\"\n", 1, "push_public_url", "a user in the URL"},
		{"query", "push_public_url = \"https://a.example.com/?x=1\"\n", 1, "push_public_url", "no query"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parse(t, tc.doc)
			ce, ok := err.(*Error)
			if !ok {
				t.Fatalf("err = %v (%T), want *Error", err, err)
			}
			if ce.Line != tc.line || ce.Key != tc.key || !strings.Contains(ce.Msg, tc.msg) {
				t.Errorf("got line %d key %q msg %q; want line %d key %q msg containing %q", ce.Line, ce.Key, ce.Msg, tc.line, tc.key, tc.msg)
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Errorf("the error repeats the secret: %v", err)
			}
		})
	}
	c, err := parse(t, "push_public_url = \"https://hub.example.com:7717/a2atop\"\npush_listen = \":7718\"\n")
	if err != nil || !c.PushOn() {
		t.Fatalf("a good push config: %v (on %v)", err, c != nil && c.PushOn())
	}
}

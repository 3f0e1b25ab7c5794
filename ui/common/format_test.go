package common

import (
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

func TestAge(t *testing.T) {
	now := time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{-time.Minute, "now"}, {0, "now"}, {42 * time.Second, "42s"}, {5 * time.Minute, "5m"},
		{3 * time.Hour, "3h"}, {47 * time.Hour, "47h"}, {72 * time.Hour, "3d"},
	} {
		if got := Age(now, now.Add(-tc.d)); got != tc.want {
			t.Errorf("Age(-%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
	if Age(now, time.Time{}) != "-" {
		t.Error("zero time should be -")
	}
}

func TestShortID(t *testing.T) {
	for in, want := range map[string]string{
		"23cf3710-aaaa-bbbb":                   "23cf3710",
		"abc":                                  "abc",
		"23cf3710-0000-4000-8000-000000000005": "23cf3710", // v4: the prefix
		"01a228fb-5c1e-7a3b-9d2e-4f6a8b0c1d2e": "8b0c1d2e", // v7: the random tail
	} {
		if got := ShortID(a2a.TaskID(in)); got != want {
			t.Errorf("ShortID(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStamp(t *testing.T) {
	now := time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)
	if got := Stamp(now, now.Add(-90*time.Second)); got != "2026-11-29 19:58:30Z (1m ago)" {
		t.Fatalf("Stamp = %q", got)
	}
}

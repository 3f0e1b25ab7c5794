package common

import (
	"testing"
	"time"
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

func TestStamp(t *testing.T) {
	now := time.Date(2026, 11, 29, 20, 0, 0, 0, time.UTC)
	if got := Stamp(now, now.Add(-90*time.Second)); got != "2026-11-29 19:58:30Z (1m ago)" {
		t.Fatalf("Stamp = %q", got)
	}
}

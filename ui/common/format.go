package common

import (
	"strconv"
	"time"
)

// Age writes how long ago t was, compactly: "now", "42s", "5m", "3h",
// "2d". A zero t is "-". A t in the future (clock skew) is "now".
func Age(now, t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	d := now.Sub(t)
	switch {
	case d < time.Second:
		return "now"
	case d < time.Minute:
		return strconv.Itoa(int(d/time.Second)) + "s"
	case d < time.Hour:
		return strconv.Itoa(int(d/time.Minute)) + "m"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d/time.Hour)) + "h"
	default:
		return strconv.Itoa(int(d/(24*time.Hour))) + "d"
	}
}

// Stamp writes a timestamp for the detail view in UTC with its age:
// "2026-11-29 20:13:15Z (42s ago)". A zero t is "-".
func Stamp(now, t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	s := t.UTC().Format("2006-01-02 15:04:05Z")
	if a := Age(now, t); a != "now" {
		return s + " (" + a + " ago)"
	}
	return s + " (now)"
}

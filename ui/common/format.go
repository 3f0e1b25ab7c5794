package common

import (
	"strconv"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
)

// ShortID is 8 characters of a task id, as rows show it: the first 8,
// except for a time-ordered UUID (version 7, what the A2A Go SDK makes),
// whose first 8 are the same for every task created in the same minute and
// whose last 8 are random, so those are shown.
func ShortID(id a2a.TaskID) string {
	s := string(id)
	if len(s) <= 8 {
		return s
	}
	if isUUIDv7(s) {
		return s[len(s)-8:]
	}
	return s[:8]
}

// isUUIDv7 reports whether s is a canonical UUID of version 7.
func isUUIDv7(s string) bool {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' || s[14] != '7' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '-' {
			continue
		}
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

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

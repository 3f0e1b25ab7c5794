package interop

import "testing"

// goTargets starts Go SDK agents; filled in below.
func goTargets(t *testing.T) []target { return nil }

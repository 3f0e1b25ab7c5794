//go:build !race

package a2aclient

const raceEnabled = false

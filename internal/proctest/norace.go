//go:build !race

package proctest

// RaceEnabled: see race.go.
const RaceEnabled = false

//go:build race

package proctest

// RaceEnabled says the binary was built with the race detector, which
// multiplies a process's memory: peak-memory bounds are asserted only in
// builds without it (.ci/run runs those tests so as well).
const RaceEnabled = true

package lint

import (
	"context"
	"runtime/pprof"
)

// The benchmarks label their CPU profile samples by role: "machine" for
// the goroutine that runs the protocol machine (lintOnceWith's), "worker"
// for the read-ahead goroutines that read and decode. The machine's
// goroutine is the sequential part of linting, so its share of the CPU
// bounds what more cores can gain:
//
//	go test ./lint -run '^$' -bench 'Lint$' -cpu 2 -cpuprofile cpu.out
//	go tool pprof -tags cpu.out                     # CPU per role
//	go tool pprof -tagfocus role=machine cpu.out    # the machine's profile
func init() {
	workerLabels := pprof.WithLabels(context.Background(), pprof.Labels("role", "worker"))
	testHookWorker = func() { pprof.SetGoroutineLabels(workerLabels) }
}

// asMachine runs lint on the calling goroutine labelled as the machine's.
// The workers start from it, so the label is set before they are, and
// each replaces it with its own.
func asMachine(lint func()) {
	pprof.Do(context.Background(), pprof.Labels("role", "machine"), func(context.Context) { lint() })
}

package conformance

import (
	"flag"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/acplint/acplint/internal/third_party/rapid"
)

// rapid is a testing library: it reads its settings from flags on the
// default flag set (rapid.checks, rapid.seed, …), and calls
// testing.Short, which panics unless the testing flags were registered
// and parsed. Inside a `go test` binary that is done; inside the acplint
// binary initRapid does it, once, without touching acplint's own flags.
var rapidOnce sync.Once

func initRapid() {
	rapidOnce.Do(func() {
		rapid.RegisterFlags()
		testing.Init()
		if !flag.Parsed() {
			_ = flag.CommandLine.Parse(nil)
		}
	})
}

// rapid's settings are process globals (flags). Checks with the same
// settings may run at once, since they only read them; a check with other
// settings waits until the running ones are done before it changes them.
var rapidState struct {
	mu      sync.Mutex
	cond    *sync.Cond
	current rapidSettings
	set     bool
	active  int
}

// rapidSettings are the rapid flags one check runs with.
type rapidSettings struct {
	checks     int
	seed       uint64
	shrinkTime time.Duration
}

func acquireRapid(s rapidSettings) {
	rs := &rapidState
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.cond == nil {
		rs.cond = sync.NewCond(&rs.mu)
	}
	for rs.active > 0 && rs.current != s {
		rs.cond.Wait()
	}
	if !rs.set || rs.current != s {
		initRapid()
		for k, v := range map[string]string{
			"rapid.checks":     strconv.Itoa(s.checks),
			"rapid.seed":       strconv.FormatUint(s.seed, 10),
			"rapid.shrinktime": s.shrinkTime.String(),
			// Fail files are for go test's testdata; check writes its own
			// minimal transcripts instead.
			"rapid.nofailfile": "true",
			"rapid.failfile":   "",
			"rapid.v":          "false",
			"rapid.log":        "false",
		} {
			if err := flag.Set(k, v); err != nil {
				panic(fmt.Sprintf("conformance: setting %s: %v", k, err))
			}
		}
		rs.current, rs.set = s, true
	}
	rs.active++
}

func releaseRapid() {
	rs := &rapidState
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.active--
	rs.cond.Broadcast()
}

// runRapid runs prop under rapid with s and reports whether rapid found a
// failing input; logs are what rapid said (the draws of the minimal run).
func runRapid(name string, s rapidSettings, prop func(*rapid.T)) (failed bool, logs []string) {
	acquireRapid(s)
	defer releaseRapid()
	tb := &cliTB{name: name}
	done := make(chan struct{})
	go func() {
		defer close(done)
		rapid.Check(tb, prop)
	}()
	<-done
	return tb.Failed(), tb.logs
}

// cliTB is the rapid.TB of a check run outside `go test`: it keeps the
// log and the failed state, and stops the checking goroutine the way
// testing.T does, with runtime.Goexit.
type cliTB struct {
	name   string
	mu     sync.Mutex
	failed bool
	logs   []string
}

func (t *cliTB) Helper()      {}
func (t *cliTB) Name() string { return t.name }

func (t *cliTB) Logf(format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.logs = append(t.logs, fmt.Sprintf(format, args...))
}

func (t *cliTB) Log(args ...any) { t.Logf("%s", fmt.Sprint(args...)) }

func (t *cliTB) Skipf(format string, args ...any) { t.Logf(format, args...); t.SkipNow() }
func (t *cliTB) Skip(args ...any)                 { t.Log(args...); t.SkipNow() }
func (t *cliTB) SkipNow()                         { runtime.Goexit() }

func (t *cliTB) Errorf(format string, args ...any) { t.Logf(format, args...); t.Fail() }
func (t *cliTB) Error(args ...any)                 { t.Log(args...); t.Fail() }
func (t *cliTB) Fatalf(format string, args ...any) { t.Logf(format, args...); t.FailNow() }
func (t *cliTB) Fatal(args ...any)                 { t.Log(args...); t.FailNow() }
func (t *cliTB) FailNow()                          { t.Fail(); runtime.Goexit() }

func (t *cliTB) Fail() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.failed = true
}

func (t *cliTB) Failed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.failed
}

var _ rapid.TB = (*cliTB)(nil)

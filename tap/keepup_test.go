package tap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acplint/acplint/transcript"
)

// TestKeepUpWait: the rule the tap waits by for work behind the traffic.
// Progress and the time spent waiting for a CPU are functions of the
// clock here, so what each window sees does not depend on the machine's
// load: work that keeps up is waited for however long it takes; work
// that stops is given up on after a window; work kept from the CPU is
// waited for up to MostStarved, and finishes if it gets the CPU back.
func TestKeepUpWait(t *testing.T) {
	const need = 1000
	type phase struct {
		until     time.Duration // from the start of the wait; the last one lasts
		perSecond int64         // progress
		starved   bool          // kept from the CPU
	}
	for _, c := range []struct {
		name        string
		phases      []phase
		mostStarved time.Duration
		noStarved   bool          // no KeepUp.Starved: nothing says the work is kept from the CPU
		doneAfter   time.Duration // 0: never
		want        error
		least, most time.Duration
	}{
		{name: "keeps up until done", phases: []phase{{perSecond: 10 * need}},
			doneAfter: 3500 * time.Millisecond, least: 3500 * time.Millisecond, most: 3500*time.Millisecond + 2*time.Second},
		{name: "stops", phases: []phase{{until: 2 * time.Second, perSecond: 10 * need}, {}},
			want: ErrFellBehind, least: 3 * time.Second, most: 3*time.Second + 2*time.Second},
		{name: "too slow", phases: []phase{{perSecond: need / 2}},
			want: ErrFellBehind, least: KeepUpWindow, most: KeepUpWindow + 2*time.Second},
		{name: "slow, but kept from the CPU", phases: []phase{{perSecond: need / 2, starved: true}},
			mostStarved: 2 * time.Second, want: ErrKeptFromCPU, least: 3 * time.Second, most: 3*time.Second + 2*time.Second},
		{name: "kept from the CPU, then done", phases: []phase{{until: 2500 * time.Millisecond, starved: true}, {perSecond: 10 * need}},
			mostStarved: 30 * time.Second, doneAfter: 4 * time.Second, least: 4 * time.Second, most: 4*time.Second + 2*time.Second},
		{name: "kept from the CPU, nothing says so", phases: []phase{{starved: true}}, noStarved: true,
			want: ErrFellBehind, least: KeepUpWindow, most: KeepUpWindow + 2*time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			// integrate adds up what the phases give until now.
			integrate := func(of func(phase) float64) float64 {
				at, sum := time.Duration(0), 0.0
				now := time.Since(start)
				for i, p := range c.phases {
					end := p.until
					if i == len(c.phases)-1 || end > now {
						end = now
					}
					if end > at {
						sum += of(p) * (end - at).Seconds()
						at = end
					}
					if at >= now {
						break
					}
				}
				return sum
			}
			progress := func() int64 { return int64(integrate(func(p phase) float64 { return float64(p.perSecond) })) }
			k := KeepUp{Need: need, MostStarved: c.mostStarved}
			if !c.noStarved {
				// Starved most of the window since it was last asked.
				var asked time.Duration
				k.Starved = func() bool {
					was := asked
					asked = time.Since(start)
					in := 0.0
					for i, p := range c.phases {
						from, to := time.Duration(0), p.until
						if i > 0 {
							from = c.phases[i-1].until
						}
						if i == len(c.phases)-1 {
							to = asked
						}
						if p.starved {
							in += max(0, (min(to, asked) - max(from, was)).Seconds())
						}
					}
					return in >= (asked-was).Seconds()/2
				}
			}
			done := make(chan struct{})
			if c.doneAfter > 0 {
				time.AfterFunc(c.doneAfter, func() { close(done) })
			}
			err := k.Wait(done, progress)
			took := time.Since(start)
			if !errors.Is(err, c.want) {
				t.Errorf("Wait gave %v, want %v", err, c.want)
			}
			// The windows are timers: the machine's load can only make
			// them late, never early.
			if took < c.least || took > c.most {
				t.Errorf("Wait took %v, want %v to %v", took, c.least, c.most)
			}
		})
	}
}

// TestRunLeavesEndObserverToCaller: Run does not wait at the end for an
// observer with an End: it returns once the agent has exited, and the
// observer goes on with its queue; End is called once it has been given
// every line, and the caller waits for that by the rule it chooses. (The
// observer here takes no line until Run has returned.)
func TestRunLeavesEndObserverToCaller(t *testing.T) {
	const n = 2000
	t.Setenv("TAP_LINES", strconv.Itoa(n))
	var frames atomic.Int64
	returned := make(chan struct{})
	ended := make(chan int64, 1)
	slow := Observer{Name: "slow", Frame: func(transcript.Frame) {
		<-returned
		frames.Add(1)
	}, End: func() { ended <- frames.Load() }}
	var out bytes.Buffer
	var res Result
	within(t, 30*time.Second, func() {
		var err error
		res, err = Run(context.Background(), Options{Command: fixture("chatty"), Stderr: io.Discard, DrainTimeout: 100 * time.Millisecond,
			Observers: []Observer{slow}}, bytes.NewReader(nil), &out)
		if err != nil {
			t.Error(err)
		}
	})
	close(returned)
	if !bytes.Equal(out.Bytes(), chattyLines(n)) {
		t.Errorf("the editor got %d bytes, want %d", out.Len(), len(chattyLines(n)))
	}
	if len(res.Left) != 0 {
		t.Errorf("Run reports the observer left without %v; the caller waits for it", res.Left)
	}
	select {
	case got := <-ended:
		if got != n {
			t.Errorf("End was called after %d lines, want all %d", got, n)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("End was not called")
	}
}

// TestHeldObserverKeptFromCPU: at the end, the tap waits for an observer
// that holds the traffic (the recorder) as long as it keeps up, and while
// it is kept from the CPU (Observer.Starved) too: one that writes too
// slowly is stopped after a window, with what it had not written in
// Result.Left, unless it is kept from the CPU, and then it writes all.
func TestHeldObserverKeptFromCPU(t *testing.T) {
	const n = 500 // about 50 KB of work, within the queue: nothing is held or dropped before the end
	t.Setenv("TAP_LINES", strconv.Itoa(n))
	for _, starved := range []bool{false, true} {
		t.Run(fmt.Sprintf("starved=%v", starved), func(t *testing.T) {
			var got atomic.Int64
			slow := Observer{Name: "recorder", Hold: true, Frame: func(f transcript.Frame) {
				got.Add(1)
				time.Sleep(10 * time.Millisecond) // 10 KB a second, less than the 16 KiB a 64 KiB queue needs
			}}
			if starved {
				slow.Starved = func() bool { return true }
			}
			var out bytes.Buffer
			var res Result
			within(t, 30*time.Second, func() {
				var err error
				res, err = Run(context.Background(), Options{Command: fixture("chatty"), Stderr: io.Discard, QueueBytes: 64 << 10,
					Observers: []Observer{slow}}, bytes.NewReader(nil), &out)
				if err != nil {
					t.Error(err)
				}
			})
			left, stopped := res.Left["recorder"]
			if starved && (stopped || got.Load() != n) {
				t.Errorf("kept from the CPU, the observer was stopped after %d lines (left without %d); want all %d written", got.Load(), left.Frames, n)
			}
			if !starved && (!stopped || got.Load()+left.Frames != n) {
				t.Errorf("too slow, the observer wrote %d lines and was left without %d (stopped: %v); want it stopped, %d in all", got.Load(), left.Frames, stopped, n)
			}
		})
	}
}

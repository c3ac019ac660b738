package conformance

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/acplint/acplint/internal/third_party/rapid"
)

// Starting the agent and its initialize handshake are most of what a short
// sequence costs, and a sequence spends much of the rest waiting on the
// agent (its pauses, --settle). So the exploration lets one agent process
// serve several sequences, one after the other, and runs several processes
// at once (Options.Parallel).
//
// Sequences share a process only where no rule needs a process of its own:
//
//   - they would send it the same initialize (protocol version and client
//     capabilities, see agentKey): the initialize exchange of the process's
//     start is replayed at the head of each one's record, so that every
//     transcript still reads, and is linted, as a whole connection;
//   - they inject no fault (sharesAgent): a disconnect ends the connection,
//     and late or duplicate answers, overlapping prompts and chunked writes
//     may leave the agent in a state that no other sequence should inherit,
//     or crash it on behalf of the wrong sequence;
//   - starting the agent costs more than making sure it is done with the
//     sequence: --settle, unless it is quiet already (executeOn);
//   - each ended well (client.canHandOver): no harness failure, every
//     request answered, the agent alive and, for --settle, quiet; and the
//     agent said nothing while it waited for the next (proc.resume).
//     Otherwise the close ladder ends the process as it ends every process,
//     and the next sequence gets a fresh one.
//
// Each sequence opens sessions of its own and never touches those of
// another. The preflight, and every run made while shrinking a failure, get
// a fresh process: a minimal transcript must be a whole connection from
// the process's start. CHECK-CLOSE is judged on the last sequence of each
// process, when the close ladder runs.

// DefaultSequencesPerAgent is how many sequences one agent process serves
// at most.
const DefaultSequencesPerAgent = 8

// DefaultParallel is how many agents a check runs at once: four per core,
// since a sequence mostly waits (on the agent's pauses, on --settle): the
// reference agent's take about 90 ms of wall time and 5 ms of CPU, its
// own and the harness's, on a loaded 2-core machine.
func DefaultParallel() int { return min(4*runtime.NumCPU(), 16) }

// exploreWindow is how many plans are drawn ahead and grouped into chains
// at a time: enough for the sequences of one initialize to share a process,
// few enough that the plans drawn ahead stay small.
const exploreWindow = 128

// ClosedKept says that the process outlived the run: it went on to serve
// the next sequence.
const ClosedKept CloseStep = "kept for the next sequence"

// agentConn is an agent process that answered initialize and may serve
// another sequence that sends the same initialize.
type agentConn struct {
	p *proc
	// handshake is the initialize request and response of the process's
	// start, replayed at the head of every later sequence's record; nil
	// until the first sequence has it.
	handshake []Record
	// nextID is the next request id: ids stay unique over the process's
	// whole connection.
	nextID int
	// startup is how long the process took to answer initialize.
	startup time.Duration
}

// retire ends a process no sequence will use, by the close ladder.
func (cn *agentConn) retire(grace time.Duration, interrupt <-chan struct{}) {
	cn.p.shutdown(grace, grace, interrupt, nil)
	cn.p.stop()
}

// canHandOver reports whether the process may serve another sequence once
// this one is over (see the rules above).
func (c *client) canHandOver() bool {
	return c.failure == nil && !c.interrupted && !c.eof && !c.closing && c.disconnectLine == 0 &&
		c.handshake != nil && c.agent.version == 1 && len(c.calls) == 0 && c.turn == nil &&
		c.ctx.Err() == nil && c.p.alive()
}

// sharesAgent reports whether plan may run on a process that served
// another sequence: not when it injects a fault.
func sharesAgent(p *Plan) bool { return len(p.Faults) == 0 }

// agentKey names the initialize a plan sends: sequences share a process
// only when their keys are equal.
func agentKey(p *Plan) string {
	caps := slices.Clone(p.Caps)
	slices.Sort(caps)
	return fmt.Sprint(p.Version, caps)
}

// agentChains groups plans (by index) into the sequences each process
// serves, in plan order: plans that share a process with the same key, at
// most per to a process; every other plan alone. The chains are ordered by
// their first plan, so that the runs wanted first are made first.
func agentChains(plans []*Plan, per int) [][]int {
	var chains [][]int
	open := map[string]int{} // key -> its chain still taking plans
	for i, p := range plans {
		if per <= 1 || !sharesAgent(p) {
			chains = append(chains, []int{i})
			continue
		}
		key := agentKey(p)
		if c, ok := open[key]; ok && len(chains[c]) < per {
			chains[c] = append(chains[c], i)
			continue
		}
		open[key] = len(chains)
		chains = append(chains, []int{i})
	}
	return chains
}

// explore runs the tour plans, then the generated ones, on
// Options.Parallel processes at once, and keeps their runs in plan order
// whatever order they end in, so that run numbers and the verdict do not
// depend on which process was quicker. Plans are drawn from rapid as they
// are needed and grouped into chains an exploreWindow at a time; the next
// window's chains start while the last ones of the window before run.
func (k *checker) explore(tours []*Plan) error {
	plans := make(chan *Plan)
	stop := make(chan struct{})
	drawn := make(chan struct{})
	var failed bool
	var logs []string
	go func() {
		defer close(drawn)
		defer close(plans)
		gen := planGenerator(k.opts.Caps, k.opts.Faults, k.opts.Steps)
		failed, logs = runRapid("acplint-check", rapidSettings{checks: k.opts.Runs, seed: k.opts.Seed, shrinkTime: k.opts.ShrinkTime}, func(t *rapid.T) {
			// Once the check is stopped, the remaining checks draw nothing:
			// drawing a plan is what costs.
			if k.ctx.Err() != nil {
				return
			}
			p := gen.Draw(t, "plan")
			select {
			case plans <- p:
			case <-stop:
			}
		})
	}()

	type chainJob struct {
		w     *planWindow
		chain []int
	}
	queue := make(chan chainJob)
	var workers sync.WaitGroup
	for range k.opts.Parallel {
		workers.Go(func() {
			for job := range queue {
				k.runChain(job.chain, job.w)
			}
		})
	}
	// At most two windows wait to be kept while a third runs: what is
	// drawn ahead stays bounded.
	windows := make(chan *planWindow, 2)
	go func() {
		defer close(queue)
		defer close(windows)
		for first := true; k.ctx.Err() == nil; first = false {
			w := &planWindow{plans: tours}
			if first {
				w.tours = len(tours)
			}
			tours = nil
			for len(w.plans) < exploreWindow && k.ctx.Err() == nil {
				p, ok := <-plans
				if !ok {
					break
				}
				w.plans = append(w.plans, p)
			}
			if len(w.plans) == 0 {
				return
			}
			w.runs = make([]*Run, len(w.plans))
			w.done = make([]chan struct{}, len(w.plans))
			for i := range w.done {
				w.done[i] = make(chan struct{})
			}
			windows <- w
			for _, chain := range agentChains(w.plans, k.opts.SequencesPerAgent) {
				queue <- chainJob{w, chain}
			}
		}
	}()
	for w := range windows {
		for i := range w.plans {
			<-w.done[i]
			if run := w.runs[i]; run != nil && k.addRun(run) && i < w.tours {
				k.tourRuns++
			}
		}
	}
	workers.Wait()
	close(stop)
	<-drawn
	if failed {
		return fmt.Errorf("internal error while generating sequences:\n%s", strings.Join(logs, "\n"))
	}
	return nil
}

// planWindow is a run of plans grouped into chains together; runs[i] is the
// run of plans[i] (nil when the check stopped first), set before done[i]
// is closed. The first tours plans are tour runs.
type planWindow struct {
	plans []*Plan
	tours int
	runs  []*Run
	done  []chan struct{}
}

// runChain runs the plans of one chain on one process, as far as it stays
// fit (executeOn starts another when it does not). Once the check is
// stopped, the chain's remaining plans are not run.
func (k *checker) runChain(chain []int, w *planWindow) {
	var cn *agentConn
	for n, i := range chain {
		if k.ctx.Err() == nil {
			w.runs[i], cn = k.executeOn(w.plans[i], cn, n < len(chain)-1)
		}
		close(w.done[i])
	}
	if cn != nil {
		cn.retire(k.opts.CloseGrace, k.ctx.Done())
	}
}

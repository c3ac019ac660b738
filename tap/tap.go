// Package tap sits between an editor and an ACP agent: it starts the
// agent, forwards both byte streams unchanged, and hands every line that
// crosses to an observer (recording, live linting).
//
// Forwarding never waits for the observer's work on a line beyond copying
// it: bytes go to the other side as soon as they are read, so a slow
// recorder cannot stall the editor, and a line of any length (tens of MB)
// is forwarded in pieces as it arrives.
package tap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/transcript"
)

// Options configure a tap.
type Options struct {
	// Command is the agent and its arguments.
	Command []string
	// Stderr receives the agent's stderr unchanged (the editor's stderr).
	Stderr io.Writer
	// Observe is called once per complete line, in the order the tap saw
	// the lines, from a single goroutine. It may be nil.
	Observe func(transcript.Frame)
	// Grace is how long the agent may stay silent after its stdin closed
	// before it is sent SIGTERM, and again before SIGKILL.
	Grace time.Duration
}

// Result describes how the agent ended.
type Result struct {
	// ExitCode is the agent's exit code, or 128+signal when a signal
	// killed it, the convention of shells (and what the editor expects).
	ExitCode int
	// Frames counts the lines observed in each direction.
	FromClient, FromAgent int
}

// Run starts the agent and forwards clientIn to its stdin and its stdout
// to clientOut until the agent exits. When clientIn ends, the agent's stdin
// is closed (the ACP way to ask it to exit); if it does not exit within
// Grace it gets SIGTERM, then SIGKILL. Signals the tap receives (SIGINT,
// SIGTERM, SIGHUP) are passed on to the agent.
func Run(ctx context.Context, opts Options, clientIn io.Reader, clientOut io.Writer) (Result, error) {
	if len(opts.Command) == 0 {
		return Result{}, errors.New("tap: no agent command")
	}
	if opts.Grace <= 0 {
		opts.Grace = 5 * time.Second
	}
	cmd := exec.Command(opts.Command[0], opts.Command[1:]...)
	cmd.Stderr = opts.Stderr
	agentIn, err := cmd.StdinPipe()
	if err != nil {
		return Result{}, err
	}
	agentOut, err := cmd.StdoutPipe()
	if err != nil {
		return Result{}, err
	}
	if err := cmd.Start(); err != nil {
		return Result{}, fmt.Errorf("tap: starting the agent: %w", err)
	}

	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)

	obs := newObserver(opts.Observe)
	start := time.Now()
	var wg sync.WaitGroup
	wg.Add(2)
	clientDone := make(chan struct{})
	go func() {
		defer wg.Done()
		defer close(clientDone)
		pump(clientIn, agentIn, domain.FromClient, start, obs)
		agentIn.Close() // EOF from the editor: tell the agent to exit
	}()
	agentDone := make(chan struct{})
	go func() {
		defer wg.Done()
		defer close(agentDone)
		pump(agentOut, clientOut, domain.FromAgent, start, obs)
	}()

	waitErr := make(chan error, 1)
	go func() {
		<-agentDone // read stdout to EOF before Wait closes the pipe
		waitErr <- cmd.Wait()
	}()

	var werr error
	ladder := time.NewTimer(time.Hour)
	ladder.Stop()
	step := 0
	var lastAgentBytes int64
	// Each of these fires once: a nil channel is never ready, so a closed
	// one must be set to nil after it is handled, or select picks it again
	// and again.
	clientClosed, cancelled := clientDone, ctx.Done()
	for done := false; !done; {
		select {
		case werr = <-waitErr:
			done = true
		case s := <-sigs:
			_ = cmd.Process.Signal(s)
		case <-clientClosed:
			clientClosed = nil
			ladder.Reset(opts.Grace)
		case <-cancelled:
			cancelled = nil
			agentIn.Close()
			_ = cmd.Process.Signal(syscall.SIGTERM)
			ladder.Reset(opts.Grace)
			step = 1
		case <-ladder.C:
			if n := obs.agentBytes.Load(); n != lastAgentBytes {
				// Still writing (a large reply after the editor hung up):
				// the grace period counts from the agent's last output.
				lastAgentBytes = n
				ladder.Reset(opts.Grace)
				continue
			}
			if step == 0 {
				_ = cmd.Process.Signal(syscall.SIGTERM)
				step = 1
				ladder.Reset(opts.Grace)
			} else {
				_ = cmd.Process.Kill()
			}
		}
	}
	ladder.Stop()
	// The client side may still be blocked reading the editor's stdin; the
	// agent is gone, so its lines have nowhere to go. Do not wait for it.
	<-agentDone
	obs.close()
	res := Result{ExitCode: exitCode(cmd.ProcessState, werr)}
	res.FromClient, res.FromAgent = obs.counts()
	return res, nil
}

func exitCode(ps *os.ProcessState, err error) int {
	if ps == nil {
		if err != nil {
			return 1
		}
		return 0
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// pump copies src to dst as bytes arrive, and passes each complete line to
// the observer. A write error to dst (the reader went away) stops the
// copy; the rest of src is still drained so the writer does not block.
func pump(src io.Reader, dst io.Writer, from domain.Direction, start time.Time, obs *observer) {
	buf := make([]byte, 256<<10)
	var partial []byte
	writeOK := true
	for {
		n, err := src.Read(buf)
		if from == domain.FromAgent {
			obs.agentBytes.Add(int64(n))
		}
		if n > 0 {
			chunk := buf[:n]
			if writeOK {
				if _, werr := dst.Write(chunk); werr != nil {
					writeOK = false
				}
			}
			for {
				i := bytes.IndexByte(chunk, '\n')
				if i < 0 {
					partial = append(partial, chunk...)
					break
				}
				line := append(partial, chunk[:i]...)
				partial = nil
				obs.send(transcript.Frame{From: from, T: time.Since(start), Conn: 1, Data: bytes.Clone(line)})
				chunk = chunk[i+1:]
			}
		}
		if err != nil {
			if len(partial) > 0 {
				// A last line without "\n": still traffic, keep it.
				obs.send(transcript.Frame{From: from, T: time.Since(start), Conn: 1, Data: partial})
			}
			return
		}
	}
}

// observer serialises frames from both pumps onto one goroutine, so the
// observer sees one order, the one a recording keeps.
type observer struct {
	fn     func(transcript.Frame)
	mu     sync.Mutex
	frames chan transcript.Frame
	done   chan struct{}
	closed bool
	n      [3]int
	// agentBytes counts bytes read from the agent, to tell a busy agent
	// from a hung one.
	agentBytes atomic.Int64
}

func newObserver(fn func(transcript.Frame)) *observer {
	o := &observer{fn: fn, frames: make(chan transcript.Frame, 1024), done: make(chan struct{})}
	go func() {
		defer close(o.done)
		for f := range o.frames {
			if o.fn != nil {
				o.fn(f)
			}
		}
	}()
	return o
}

func (o *observer) send(f transcript.Frame) {
	o.mu.Lock()
	if o.closed {
		// The agent is gone and the tap is finishing; a late line from the
		// editor was not delivered to anyone, so it is not traffic.
		o.mu.Unlock()
		return
	}
	o.n[f.From]++
	// Sending under the lock keeps the channel order equal to the count
	// order, so the two pumps' lines are observed as they were stamped.
	o.frames <- f
	o.mu.Unlock()
}

func (o *observer) close() {
	o.mu.Lock()
	o.closed = true
	close(o.frames)
	o.mu.Unlock()
	<-o.done
}

func (o *observer) counts() (client, agent int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.n[domain.FromClient], o.n[domain.FromAgent]
}

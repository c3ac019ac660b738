package conformance

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/acplint/acplint/domain"
)

// AgentCommand is how to start the agent under test.
type AgentCommand struct {
	Path string   // program; looked up in PATH when it has no slash
	Args []string // arguments after the program
	Dir  string   // working directory; the current one when empty
	Env  []string // extra environment, added to acplint's own
}

func (c AgentCommand) String() string {
	return fmt.Sprint(append([]string{c.Path}, c.Args...))
}

// frame is one line the agent wrote on stdout.
type frame struct {
	line []byte // without its terminator
	num  int    // transcript line number
}

// proc is one running agent process with its stdio.
type proc struct {
	cmd    *exec.Cmd
	stdin  *os.File
	rec    *Transcript
	frames chan frame
	// eof is closed when stdout reached end of file (or failed).
	eof chan struct{}
	// exited is closed when the process has been waited for.
	exited  chan struct{}
	waitErr error
	stderr  *tailBuffer
	start   time.Time

	writeMu sync.Mutex
	closed  bool // stdin closed
}

// maxStderr bounds what is kept of the agent's stderr: its tail says why
// it failed, the rest is noise.
const maxStderr = 64 << 10

// startProc starts the agent with its stdio on pipes. The agent runs in a
// process group of its own so that signals reach a wrapper's children too
// (`go run`, `npx`, shell scripts).
func startProc(c AgentCommand, rec *Transcript) (*proc, error) {
	cmd := exec.Command(c.Path, c.Args...)
	cmd.Dir = c.Dir
	cmd.Env = append(os.Environ(), c.Env...)
	setProcessGroup(cmd)
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	p := &proc{
		cmd:    cmd,
		stdin:  inW,
		rec:    rec,
		frames: make(chan frame, 256),
		eof:    make(chan struct{}),
		exited: make(chan struct{}),
		stderr: &tailBuffer{max: maxStderr},
	}
	cmd.Stdin = inR
	cmd.Stdout = outW
	cmd.Stderr = p.stderr
	p.start = time.Now()
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	go p.read(outR)
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// read records every stdout line the moment it arrives and hands it to
// the client. Lines of any length are read whole.
func (p *proc) read(r *os.File) {
	defer close(p.eof)
	defer close(p.frames)
	defer r.Close()
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			num := p.rec.add(domain.FromAgent, line)
			body := bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
			p.frames <- frame{line: body, num: num}
		}
		if err != nil {
			return
		}
	}
}

// errStdinClosed is returned by send after the harness closed stdin.
var errStdinClosed = errors.New("stdin already closed")

// send writes one line to the agent's stdin. The line is recorded before
// it is written, so that anything the agent says in reply comes after it.
// A write that blocks longer than timeout (an agent that stopped reading
// stdin) fails.
func (p *proc) send(line []byte, timeout time.Duration) (int, error) {
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	if p.closed {
		return 0, errStdinClosed
	}
	full := append(bytes.Clone(line), '\n')
	num := p.rec.add(domain.FromClient, full)
	if timeout > 0 {
		_ = p.stdin.SetWriteDeadline(time.Now().Add(timeout))
	}
	_, err := p.stdin.Write(full)
	return num, err
}

// closeStdin closes the agent's stdin once.
func (p *proc) closeStdin() {
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	if !p.closed {
		p.closed = true
		p.stdin.Close()
	}
}

// alive reports whether the process is still running.
func (p *proc) alive() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// CloseStep says which rung of the close ladder ended the agent.
type CloseStep string

const (
	ClosedBefore  CloseStep = "exited on its own" // before the harness began closing
	ClosedOnStdin CloseStep = "stdin closed"      // exited after stdin was closed
	ClosedOnTerm  CloseStep = "SIGTERM"           // needed SIGTERM
	ClosedOnKill  CloseStep = "SIGKILL"           // needed SIGKILL
	ClosedNever   CloseStep = "still running"     // survived SIGKILL (should not happen)
)

// shutdown runs the close ladder: close stdin, then SIGTERM, then
// SIGKILL, giving the agent grace to exit at each rung while stdout keeps
// being drained (so that an agent blocked on a full pipe can still exit,
// and everything it says on the way out is recorded). drain receives the
// frames read meanwhile.
func (p *proc) shutdown(grace time.Duration, drain func(frame)) CloseStep {
	already := !p.alive()
	p.closeStdin()
	if p.waitExit(grace, drain) {
		if already {
			return ClosedBefore
		}
		return ClosedOnStdin
	}
	signalGroup(p.cmd, sigTerm)
	if p.waitExit(grace, drain) {
		return ClosedOnTerm
	}
	signalGroup(p.cmd, sigKill)
	if p.waitExit(grace, drain) {
		return ClosedOnKill
	}
	return ClosedNever
}

// waitExit drains stdout until the process has exited and stdout is at
// end of file, or the grace period is over. A process that exited while
// something else (a grandchild) still holds stdout open counts as exited
// when the grace period ends.
func (p *proc) waitExit(grace time.Duration, drain func(frame)) bool {
	timer := time.NewTimer(grace)
	defer timer.Stop()
	frames := p.frames
	exited := p.exited
	for {
		select {
		case f, ok := <-frames:
			if !ok {
				frames = nil
				if exited == nil {
					return true
				}
				continue
			}
			if drain != nil {
				drain(f)
			}
		case <-exited:
			exited = nil
			if frames == nil {
				return true
			}
		case <-timer.C:
			return exited == nil
		}
	}
}

// exitStatus describes how the process ended.
func (p *proc) exitStatus() string {
	if p.alive() {
		return "running"
	}
	if p.waitErr == nil {
		return "exit status 0"
	}
	var ee *exec.ExitError
	if errors.As(p.waitErr, &ee) {
		return ee.ProcessState.String()
	}
	return p.waitErr.Error()
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu      sync.Mutex
	max     int
	buf     []byte
	dropped int
}

func (t *tailBuffer) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if over := len(t.buf) - t.max; over > 0 {
		t.dropped += over
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(b), nil
}

// Bytes returns what is kept, with a note when the head was dropped.
func (t *tailBuffer) Bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dropped == 0 {
		return bytes.Clone(t.buf)
	}
	return append([]byte(fmt.Sprintf("[… %d earlier bytes dropped]\n", t.dropped)), t.buf...)
}

var _ io.Writer = (*tailBuffer)(nil)

package tap

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A tap killed outright (SIGKILL, the OOM killer) runs no code: the
// kernel's parent-death signal is all that is left, and it reaches one
// process, the tap's child. When that child is the agent, the real agent
// behind a wrapper (a script, npx, go run) and the helpers of any agent
// outlive the tap. So on Linux the tap's child is a small supervisor, this
// same executable: it leads the agent's process group, starts the agent in
// it, and when the parent-death signal comes, kills the whole group.
//
// The supervisor passes its stdio to the agent and closes its own copies,
// so the agent's stdout ends when the agent closes it; it ignores the
// signals the tap sends the group (the agent gets them), and when the
// agent ends it ends the same way (exit code or signal), so the tap sees
// the agent's status.

// superviseEnv marks a process started as the supervisor; its value is
// the tap's pid, so that the variable in a user's environment does not
// make acplint run its own arguments ("lint FILE") as an agent: only the
// tap's child takes it.
const superviseEnv = "ACPLINT_TAP_SUPERVISE"

// parentDied is the supervisor's parent-death signal.
const parentDied = syscall.SIGUSR2

// reportFD is the pipe on which the supervisor says whether the agent
// started: an empty report is success, else the error.
const reportFD = 3

// Supervise runs the supervisor and does not return when this process
// was started as one; otherwise it returns at once. Programs that run a
// tap call it first thing in main (and test binaries in TestMain).
func Supervise() {
	if os.Getenv(superviseEnv) != strconv.Itoa(os.Getppid()) {
		return
	}
	os.Exit(supervise(os.Args[1:]))
}

func supervise(command []string) int {
	died := make(chan os.Signal, 1)
	signal.Notify(died, parentDied)
	// The tap signals the whole group; these are for the agent.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE)
	report := os.NewFile(reportFD, "report")
	syscall.CloseOnExec(reportFD)
	if len(command) == 0 {
		fmt.Fprint(report, "no agent command")
		return 2
	}
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Env = withoutSupervise(os.Environ())
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprint(report, err.Error())
		return 127
	}
	report.Close()
	os.Stdin.Close()
	os.Stdout.Close()
	waited := make(chan *os.ProcessState, 1)
	go func() {
		cmd.Wait()
		waited <- cmd.ProcessState
	}()
	select {
	case <-died:
		syscall.Kill(0, syscall.SIGKILL) // the whole group, this process too
		return 137
	case ps := <-waited:
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			// End the way the agent ended, so the tap reports 128+N. The
			// signal arrives asynchronously: wait for it, and should it
			// not end this process (the Go runtime handles a few signals
			// itself), exit with the shell's code for it.
			signal.Reset(ws.Signal())
			syscall.Kill(os.Getpid(), ws.Signal())
			time.Sleep(time.Second)
			return 128 + int(ws.Signal())
		}
		return ps.ExitCode()
	}
}

func withoutSupervise(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, superviseEnv+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// supervisedCommand returns the command that runs the agent under a
// supervisor, and how to learn whether the agent started; ok is false
// when this executable cannot be found, and the agent runs directly.
func supervisedCommand(command []string) (cmd *exec.Cmd, started func() error, ok bool) {
	self, err := os.Executable()
	if err != nil {
		return nil, nil, false
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, false
	}
	cmd = exec.Command(self, command...)
	cmd.Env = append(os.Environ(), superviseEnv+"="+strconv.Itoa(os.Getpid()))
	cmd.ExtraFiles = []*os.File{w} // reportFD
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: parentDied}
	started = func() error {
		w.Close()
		defer r.Close()
		if msg, _ := io.ReadAll(r); len(msg) > 0 {
			return errors.New(string(msg))
		}
		return nil
	}
	return cmd, started, true
}

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acplint/acplint/internal/proctest"
	"github.com/acplint/acplint/tap"
)

// TestTapLiveLintRunsAtLowestPriority: while a tap runs, its live linter
// is a process of its own whose every thread, those the Go runtime started
// after it lowered its priority included, is SCHED_IDLE at nice 19, and
// the tap's own threads are not: the forwarding keeps its priority.
func TestTapLiveLintRunsAtLowestPriority(t *testing.T) {
	live := filepath.Join(t.TempDir(), "live.txt")
	c := tapProcess(t, "1", nil, "--lint-out", live)
	stdin, err := c.StdinPipe() // held open: the agent waits for its end
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(stdin, tapClient)
	defer func() {
		stdin.Close()
		c.Wait()
	}()
	// Once findings come, the linter has linted with every thread the
	// runtime started for it.
	linter := 0
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if linter == 0 {
			linter = childWithEnv(c.Process.Pid, liveLintEnv+"="+strconv.Itoa(c.Process.Pid))
		}
		if st, err := os.Stat(live); linter != 0 && err == nil && st.Size() > 0 {
			break
		}
	}
	if linter == 0 {
		t.Fatal("the tap started no live linter process")
	}
	if st, err := os.Stat(live); err != nil || st.Size() == 0 {
		t.Fatal("the live linter found nothing")
	}
	if threads := schedOf(linter); !allLowest(threads) {
		t.Errorf("the live linter's threads: %v; want every one SCHED_IDLE (5) at nice 19", threads)
	}
	for _, th := range schedOf(c.Process.Pid) {
		if th.policy != 0 || th.nice != 0 {
			t.Errorf("the tap's thread %v is not at the normal priority", th)
		}
	}
}

type threadSched struct{ tid, policy, nice int }

func (t threadSched) String() string {
	return fmt.Sprintf("%d:policy %d nice %d", t.tid, t.policy, t.nice)
}

func allLowest(threads []threadSched) bool {
	for _, th := range threads {
		if th.policy != schedIdle || th.nice != 19 {
			return false
		}
	}
	return len(threads) > 0
}

// schedOf reads the policy and nice value of each thread of process pid.
func schedOf(pid int) []threadSched {
	dir := fmt.Sprintf("/proc/%d/task", pid)
	names, _ := filepath.Glob(dir + "/*")
	var out []threadSched
	for _, name := range names {
		stat, err := os.ReadFile(filepath.Join(name, "stat"))
		if err != nil {
			continue
		}
		// The fields after the command's closing parenthesis start at the
		// third: nice is the 19th, policy the 41st.
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(f) < 39 {
			continue
		}
		tid, _ := strconv.Atoi(filepath.Base(name))
		nice, _ := strconv.Atoi(f[19-3])
		policy, _ := strconv.Atoi(f[41-3])
		out = append(out, threadSched{tid, policy, nice})
	}
	return out
}

// childWithEnv returns the child of pid whose environment holds kv, or 0.
func childWithEnv(pid int, kv string) int {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, t := range tasks {
		b, _ := os.ReadFile(t)
		for _, f := range strings.Fields(string(b)) {
			env, _ := os.ReadFile("/proc/" + f + "/environ")
			for _, e := range bytes.Split(env, []byte{0}) {
				if string(e) == kv {
					n, _ := strconv.Atoi(f)
					return n
				}
			}
		}
	}
	return 0
}

// TestTapLiveLinterKilledInEveryOrder: kill -9 the tap, the live linter
// process or the agent while a session runs. The linter never outlives
// the tap, the tap never ends before the agent nor leaves it behind, and
// a linter gone costs only the findings: the editor still gets every line
// the agent sends, and the tap ends with the agent's exit code.
func TestTapLiveLinterKilledInEveryOrder(t *testing.T) {
	for _, victim := range []string{"tap", "linter", "agent", "linter then tap"} {
		t.Run(victim, func(t *testing.T) {
			live := filepath.Join(t.TempDir(), "live.txt")
			c := tapProcess(t, "1", nil, "--lint-out", live)
			stdin, _ := c.StdinPipe()
			stdout, _ := c.StdoutPipe()
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			defer c.Process.Kill()
			lines := bufio.NewReader(stdout)
			readLines := func(n int) int {
				got := 0
				for ; got < n; got++ {
					if _, err := lines.ReadString('\n'); err != nil {
						break
					}
				}
				return got
			}
			first, rest, _ := strings.Cut(tapClient, "\n")
			io.WriteString(stdin, first+"\n")
			if got := readLines(1); got != 1 {
				t.Fatal("no answer to initialize")
			}
			linter, agent := 0, 0
			for deadline := time.Now().Add(5 * time.Second); (linter == 0 || agent == 0) && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
				linter = childWithEnv(c.Process.Pid, liveLintEnv+"="+strconv.Itoa(c.Process.Pid))
				if sup := childWithEnv(c.Process.Pid, "ACPLINT_TAP_SUPERVISE="+strconv.Itoa(c.Process.Pid)); sup != 0 {
					agent = childWithEnv(sup, "ACPLINT_FIXTURE_AGENT=1")
				}
			}
			if linter == 0 || agent == 0 {
				t.Fatalf("linter pid %d, agent pid %d", linter, agent)
			}
			for _, v := range strings.Fields(victim) {
				switch v {
				case "tap":
					c.Process.Kill()
				case "linter":
					syscall.Kill(linter, syscall.SIGKILL)
					time.Sleep(100 * time.Millisecond)
				case "agent":
					syscall.Kill(agent, syscall.SIGKILL)
				}
			}
			if strings.HasSuffix(victim, "tap") {
				c.Wait()
			} else {
				// The editor goes on with its session.
				io.WriteString(stdin, rest)
				got := readLines(3)
				stdin.Close()
				err := c.Wait()
				switch victim {
				case "linter":
					if got != 3 || err != nil {
						t.Errorf("the editor got %d of the agent's 3 lines after the linter died, the tap ended with %v", got, err)
					}
					findings, _ := os.ReadFile(live)
					if !strings.Contains(string(findings), "live linter process: signal: killed") {
						t.Errorf("the findings do not say the linter died:\n%s", findings)
					}
				case "agent":
					if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 128+int(syscall.SIGKILL) {
						t.Errorf("the tap ended with %v, want the agent's SIGKILL as exit code %d", err, 128+int(syscall.SIGKILL))
					}
				}
			}
			for name, pid := range map[string]int{"live linter": linter, "agent": agent} {
				deadline := time.Now().Add(5 * time.Second)
				for proctest.Running(pid) && time.Now().Before(deadline) {
					time.Sleep(20 * time.Millisecond)
				}
				if proctest.Running(pid) {
					syscall.Kill(pid, syscall.SIGKILL)
					t.Errorf("the %s (pid %d) outlived the tap", name, pid)
				}
			}
		})
	}
}

// TestTapLeaksNoDescriptors: the live linter process gets its three pipes
// (the third, which it tells the tap its progress on, as fd 4 here) and,
// with --html, the page as fd 3, and the agent and its supervisor
// none of them, nor the recording, the findings file or the page: an
// agent holding the linter's pipe would keep the linter's input open, and
// a linter holding the agent's would keep the editor's connection open.
func TestTapLeaksNoDescriptors(t *testing.T) {
	dir := t.TempDir()
	c := tapProcess(t, "1", nil, "--lint-out", filepath.Join(dir, "lint"), "--record", filepath.Join(dir, "rec"), "--html", filepath.Join(dir, "page"))
	stdin, _ := c.StdinPipe()
	stdout, _ := c.StdoutPipe()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		c.Wait()
	}()
	io.WriteString(stdin, tapClient)
	if n := strings.Count(readN(stdout, 4), "\n"); n != 4 {
		t.Fatalf("the editor got %d lines", n)
	}
	tap := c.Process.Pid
	linter := childWithEnv(tap, liveLintEnv+"="+strconv.Itoa(tap))
	sup := childWithEnv(tap, "ACPLINT_TAP_SUPERVISE="+strconv.Itoa(tap))
	agent := childWithEnv(sup, "ACPLINT_FIXTURE_AGENT=1")
	if linter == 0 || sup == 0 || agent == 0 {
		t.Fatalf("linter %d, supervisor %d, agent %d", linter, sup, agent)
	}
	// What this test process holds, it handed down itself (the test
	// harness's descriptors); the tap's others are its own.
	ours := fdTargets(os.Getpid())
	tapOwn := map[string]bool{}
	for _, target := range fdTargets(tap) {
		tapOwn[target] = true
	}
	for _, target := range ours {
		delete(tapOwn, target)
	}
	for name, p := range map[string]struct {
		pid     int
		allowed []int
	}{"live linter": {linter, []int{0, 1, 2, 3, 4}}, "supervisor": {sup, []int{0, 1, 2}}, "agent": {agent, []int{0, 1, 2}}} {
		for fd, target := range fdTargets(p.pid) {
			if tapOwn[target] && !slices.Contains(p.allowed, fd) {
				t.Errorf("the %s holds the tap's %s as fd %d", name, target, fd)
			}
			if strings.HasPrefix(target, dir) && (name != "live linter" || fd != 3) {
				t.Errorf("the %s holds %s as fd %d", name, target, fd)
			}
		}
	}
}

// fdTargets maps each descriptor of pid to what it refers to.
func fdTargets(pid int) map[int]string {
	out := map[int]string{}
	ents, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	for _, e := range ents {
		fd, _ := strconv.Atoi(e.Name())
		if target, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, e.Name())); err == nil {
			out[fd] = target
		}
	}
	return out
}

// readN reads n lines from r.
func readN(r io.Reader, n int) string {
	br := bufio.NewReader(r)
	var b strings.Builder
	for range n {
		line, err := br.ReadString('\n')
		b.WriteString(line)
		if err != nil {
			break
		}
	}
	return b.String()
}

// TestTapLiveLinterKeptFromCPU: on a machine whose cores other work
// takes, the live linter, at the lowest priority, gets no CPU at all; it
// has not stopped, it waits for a CPU (cpuStarved), and the tap waits for
// it (up to tap.MostStarved). Kept from the CPU for 4 s after the
// agent's exit (the tap gave it 3 s once its queue had drained before),
// it lints everything once the other work stops, and its findings are
// exactly those of `acplint lint` of the recording. (When work this test
// does not control, at the normal priority, keeps every core busy after
// its own has stopped, the linter cannot finish; the tap must then say
// that it was kept from the CPU, and never that it stopped.)
func TestTapLiveLinterKeptFromCPU(t *testing.T) {
	n := 20000
	if proctest.RaceEnabled {
		n = 3000
	}
	dir := t.TempDir()
	rec, live := filepath.Join(dir, "rec.jsonl"), filepath.Join(dir, "live.txt")
	stopLoad := keepCoresBusy(t)
	c := tapProcess(t, "burst", []string{"FAULT_LINES=" + strconv.Itoa(n), "FAULT_END=exit"},
		"--record", rec, "--lint-out", live)
	stdout, _ := c.StdoutPipe()
	var stderr bytes.Buffer
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	forwardedWithin := readAllAsync(t, c, stdout)
	forwardedWithin(time.Minute) // the agent has exited
	time.Sleep(4 * time.Second)
	stopLoad()
	waitExit(t, c, 2*tap.MostStarved)
	if frames := recordedFramesFrom(t, rec, "agent"); frames != n {
		t.Errorf("recorded %d agent frames, want all %d", frames, n)
	}
	findings, err := os.ReadFile(live)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(findings, []byte("live linter did not finish once the agent had exited: other work kept it from the CPU")) &&
		!bytes.Contains(findings, []byte("it took less than")) {
		t.Logf("other work kept the live linter from the CPU after this test's had stopped; the tap said so:\n%s", findings[bytes.LastIndex(findings, []byte("tap: error")):])
		return
	}
	liveFindingsAreLintOf(t, live, rec, stderr.String())
}

// TestCPUStarved: how the tap tells a live linter kept from the CPU from
// one that hangs. A process that sleeps is kept from nothing; one that
// would run at the lowest priority while every core is kept busy is.
func TestCPUStarved(t *testing.T) {
	starved := func(c *exec.Cmd) bool {
		t.Helper()
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() {
			c.Process.Kill()
			c.Wait()
		}()
		time.Sleep(200 * time.Millisecond) // started
		starved := cpuStarved(c.Process.Pid)
		if starved == nil {
			t.Fatal("cpuStarved knows nothing of a running process")
		}
		time.Sleep(time.Second)
		return starved()
	}
	if starved(exec.Command("sleep", "60")) {
		t.Errorf("a sleeping process was kept from the CPU")
	}
	keepCoresBusy(t)
	spin := exec.Command(os.Args[0])
	spin.Env = append(os.Environ(), "ACPLINT_FIXTURE_AGENT=idle-spin")
	if !starved(spin) {
		t.Errorf("a process at the lowest priority, every core busy, was not kept from the CPU")
	}
}

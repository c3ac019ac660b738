package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
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

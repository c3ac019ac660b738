package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acplint/acplint/tap"
)

// liveLintTestEnv, in the environment of a test binary started as the
// tap's live linter, changes what it does: "normal-priority" lints at the
// priority it was started with, "steady", "stalls" and "boasts" run
// fakeLiveLintChild instead.
const liveLintTestEnv = "ACPLINT_TEST_LIVE_LINT"

// fakeLiveLintRate is the pace, in the work of the frames it takes
// (liveWork), of fakeLiveLintChild: twice what the tap needs of it
// (tap.KeepUpNeed of the default queue).
const fakeLiveLintRate = 2 * (1 << 20)

// fakeLiveLintChild runs, when this process was started as the tap's live
// linter with liveLintTestEnv "steady" or "stalls", a linter that takes
// its input as the live linter does (liveFrameReader), and says so
// (progressReporter), at fakeLiveLintRate, but lints nothing. "steady"
// then prints "fake linter: done" and exits; "stalls" stops taking its
// input once it has taken half of FAKE_LINT_WORK, and hangs; "boasts"
// takes nothing, and says it takes a GiB every liveProgressEvery.
// Otherwise it returns at once.
func fakeLiveLintChild() {
	mode := os.Getenv(liveLintTestEnv)
	if mode != "steady" && mode != "stalls" && mode != "boasts" || os.Getenv(liveLintEnv) != strconv.Itoa(os.Getppid()) {
		return
	}
	stallAt := int64(-1)
	if mode == "stalls" {
		work, _ := strconv.ParseInt(os.Getenv("FAKE_LINT_WORK"), 10, 64)
		stallAt = work / 2
	}
	in := bufio.NewReaderSize(os.Stdin, 256<<10)
	var cfg liveLintConfig
	line, _ := in.ReadBytes('\n')
	if err := json.Unmarshal(line, &cfg); err != nil || cfg.Progress == 0 {
		fmt.Printf("fake linter: no descriptor to tell the tap its progress on (%v)\n", err)
		os.Exit(2)
	}
	progressFile := os.NewFile(uintptr(cfg.Progress), "progress")
	progress := &progressReporter{w: progressFile}
	for mode == "boasts" {
		progress.add(1 << 30)
		time.Sleep(liveProgressEvery)
	}
	frames := &liveFrameReader{br: in, maxLine: cfg.MaxLine}
	var start time.Time
	var taken int64
	for {
		b, err := frames.next()
		if start.IsZero() {
			start = time.Now()
		}
		taken += liveWork(b)
		progress.add(liveWork(b))
		if ahead := time.Duration(taken*int64(time.Second)/fakeLiveLintRate) - time.Since(start); ahead > 0 {
			time.Sleep(ahead)
		}
		if err != nil {
			break
		}
		if stallAt >= 0 && taken >= stallAt {
			time.Sleep(time.Hour)
		}
	}
	fmt.Println("fake linter: done")
	// As the live linter does, before the exit (which takes the race
	// detector a second).
	progressFile.Close()
	os.Exit(0)
}

// TestTapLiveLinterAtTheEnd: once the agent has exited, the tap waits for
// its live linter as long as the linter keeps up (liveLintKeepUp): one
// that takes its input at twice the pace the tap needs, 4 s or more of it
// after the agent's end (the tap gave it 3 s once its queue had drained
// before), has its last findings kept; one that stops taking its input
// is stopped itself a window or two later, and the tap ends, saying so;
// and so is one that says it takes more than it was given.
func TestTapLiveLinterAtTheEnd(t *testing.T) {
	const n = 100000 // noisy lines
	var work int64   // the fake's, all of it: it cannot take it faster
	for _, line := range bytes.SplitAfter(noisyLines(n), []byte("\n")) {
		if len(line) > 0 {
			work += tap.LineWork(len(line) - 1)
		}
	}
	least := time.Duration(work*int64(time.Second)/fakeLiveLintRate) * 9 / 10
	for _, c := range []struct {
		mode        string
		want, never string
		least, most time.Duration // from the start of the session
	}{
		{"steady", "fake linter: done", "did not finish", least, least + 15*time.Second},
		{"stalls", "live linter did not finish once the agent had exited: it took less than", "fake linter: done",
			least / 2, least/2 + 2*tap.KeepUpWindow + 10*time.Second},
		{"boasts", "live linter did not finish once the agent had exited: it took less than", "fake linter: done",
			0, 2*tap.KeepUpWindow + 10*time.Second},
	} {
		t.Run(c.mode, func(t *testing.T) {
			defer func(f func() ([]string, error)) { liveLintCommand = f }(liveLintCommand)
			liveLintCommand = func() ([]string, error) { return []string{os.Args[0]}, nil }
			t.Setenv(liveLintTestEnv, c.mode)
			t.Setenv("FAKE_LINT_WORK", strconv.FormatInt(work, 10))
			t.Setenv("ACPLINT_FIXTURE_AGENT", "noisy")
			t.Setenv("FAULT_LINES", strconv.Itoa(n))
			live := filepath.Join(t.TempDir(), "live.txt")
			var out, stderr bytes.Buffer
			start := time.Now()
			code := run(context.Background(), []string{"tap", "--lint-out", live, "--", os.Args[0]}, strings.NewReader(""), &out, &stderr)
			took := time.Since(start)
			if code != 0 || out.Len() != len(noisyLines(n)) {
				t.Errorf("exit code %d, the editor got %d bytes, want 0 and the agent's %d", code, out.Len(), len(noisyLines(n)))
			}
			findings, err := os.ReadFile(live)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(findings), c.want) || strings.Contains(string(findings), c.never) {
				t.Errorf("the findings do not say %q, or say %q:\n%s", c.want, c.never, findings)
			}
			if took < c.least || took > c.most {
				t.Errorf("the tap took %v, want %v to %v", took, c.least, c.most)
			}
		})
	}
}

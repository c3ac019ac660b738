package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/acplint/acplint/internal/transcriptgen"
)

// BenchmarkStartup runs the built command as a process, the way an editor
// or a CI step runs it, and reports the wall time of one run in ms/op:
// "acplint version", lint of the README's example and lint of a generated
// 100 KB recording (issue 16); ms/op is the median run, ns/op the mean.
// Each run is paired, in the same loop, with one of a Go program that only
// prints a line (floor-ms/op): the runtime's own start on this machine at
// that minute, against which drift shows.
//
// With ACPLINT_STARTUP_BASELINE set to another build of acplint (say one
// built from the previous commit), each run is also paired with the same
// command of that build (base-ms/op), so that the ratio of the two is
// taken in the same minutes:
//
//	go test ./cmd/acplint -run '^$' -bench Startup -benchtime 200x
//
// Every binary is timed from a copy made here (freshCopy): a file the Go
// linker has just written starts 0.8–1.3 ms slower on this machine than the
// same bytes written by cp, as an installed or unpacked binary is, so a
// baseline copied from elsewhere would otherwise win by that much.
func BenchmarkStartup(b *testing.B) {
	bin := freshCopy(b, buildAcplint(b))
	floor := freshCopy(b, buildFloor(b))
	recording := filepath.Join(b.TempDir(), "recording.ndjson")
	f, err := os.Create(recording)
	if err != nil {
		b.Fatal(err)
	}
	if err := transcriptgen.Write(f, transcriptgen.Options{Seed: 1, Bytes: 100 << 10}); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	example, err := filepath.Abs("../../examples/session-without-mcp-servers.ndjson")
	if err != nil {
		b.Fatal(err)
	}
	baseline := os.Getenv("ACPLINT_STARTUP_BASELINE")
	if baseline != "" {
		baseline = freshCopy(b, baseline)
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"version", []string{"version"}},
		{"lint-example", []string{"lint", example}},
		{"lint-100KB", []string{"lint", recording}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var own, base, bare []time.Duration
			for b.Loop() {
				own = append(own, timeRun(b, bin, tc.args))
				bare = append(bare, timeRun(b, floor, nil))
				if baseline != "" {
					base = append(base, timeRun(b, baseline, tc.args))
				}
			}
			var total time.Duration
			for _, d := range own {
				total += d
			}
			b.ReportMetric(float64(total.Nanoseconds())/float64(len(own)), "ns/op")
			b.ReportMetric(medianMs(own), "ms/op")
			b.ReportMetric(medianMs(bare), "floor-ms/op")
			if baseline != "" {
				b.ReportMetric(medianMs(base), "base-ms/op")
			}
		})
	}
}

// medianMs is the median of ds in milliseconds: on a shared machine a few
// runs that wait for a core swamp the mean (ns/op).
func medianMs(ds []time.Duration) float64 {
	slices.Sort(ds)
	return float64(ds[len(ds)/2]) / float64(time.Millisecond)
}

// timeRun runs bin with args and returns its wall time. Lint's findings
// exit 1; anything else that is not 0 fails the benchmark.
func timeRun(b *testing.B, bin string, args []string) time.Duration {
	cmd := exec.Command(bin, args...)
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	var exited *exec.ExitError
	if err != nil && !(errors.As(err, &exited) && exited.ExitCode() == exitFindings) {
		b.Fatalf("%s %v: %v", bin, args, err)
	}
	return took
}

// buildFloor builds a Go program that prints a line and exits.
func buildFloor(b *testing.B) string {
	b.Helper()
	dir := b.TempDir()
	for name, text := range map[string]string{
		"go.mod":  "module floor\n\ngo 1.26\n",
		"main.go": "package main\n\nimport \"os\"\n\nfunc main() { os.Stdout.WriteString(\"floor\\n\") }\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "floor")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build (floor): %v\n%s", err, out)
	}
	return bin
}

// freshCopy copies the executable bin into a new file and returns its
// path. A process of a file the linker has written (through a mapping)
// faults its pages in more slowly than one of the same bytes written with
// write(2), probably for the way the page cache holds them: timing each
// binary from a copy compares them in the same state, that of a binary
// unpacked from an archive or copied into place.
func freshCopy(b *testing.B, bin string) string {
	b.Helper()
	data, err := os.ReadFile(bin)
	if err != nil {
		b.Fatal(err)
	}
	to := filepath.Join(b.TempDir(), filepath.Base(bin))
	if err := os.WriteFile(to, data, 0o700); err != nil {
		b.Fatal(err)
	}
	return to
}

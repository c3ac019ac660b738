package main

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"strings"
	"testing"
	"time"
)

// fakeTerminal is a standard input that says it is a terminal (a
// character device that is not the null device) and holds one transcript.
type fakeTerminal struct{ *strings.Reader }

func (fakeTerminal) Stat() (os.FileInfo, error) { return terminalInfo{}, nil }

type terminalInfo struct{}

func (terminalInfo) Name() string       { return "tty" }
func (terminalInfo) Size() int64        { return 0 }
func (terminalInfo) Mode() fs.FileMode  { return fs.ModeDevice | fs.ModeCharDevice | 0o620 }
func (terminalInfo) ModTime() time.Time { return time.Time{} }
func (terminalInfo) IsDir() bool        { return false }
func (terminalInfo) Sys() any           { return nil }

// TestStdinTerminalHint: lint, fmt and convert with no file on a terminal says what it is
// waiting for; on a pipe or /dev/null (CI) it says nothing.
func TestStdinTerminalHint(t *testing.T) {
	const clean = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{},"clientInfo":{"name":"e","version":"1"}}}` + "\n"
	var stdout, stderr bytes.Buffer
	run(context.Background(), []string{"lint"}, fakeTerminal{strings.NewReader(clean)}, &stdout, &stderr)
	if !strings.Contains(stderr.String(), "standard input, which is a terminal") {
		t.Errorf("lint on a terminal: stderr %q has no hint", stderr.String())
	}
	for _, cmd := range []string{"fmt", "convert"} {
		stderr.Reset()
		run(context.Background(), []string{cmd}, fakeTerminal{strings.NewReader(clean)}, &stdout, &stderr)
		if !strings.Contains(stderr.String(), "standard input, which is a terminal") {
			t.Errorf("%s on a terminal: stderr %q has no hint", cmd, stderr.String())
		}
	}
	stderr.Reset()
	run(context.Background(), []string{"lint"}, strings.NewReader(clean), &stdout, &stderr)
	if strings.Contains(stderr.String(), "terminal") {
		t.Errorf("lint on a pipe: stderr %q has the terminal hint", stderr.String())
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if isTerminal(null) {
		t.Errorf("%s counts as a terminal", os.DevNull)
	}
}

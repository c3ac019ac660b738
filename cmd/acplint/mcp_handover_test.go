package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// fakeMCPServer writes an acplint-mcp into a new directory that prints
// its arguments and $MCP_PROBE and exits 7, and returns the directory.
func fakeMCPServer(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	script := "#!/bin/sh\necho \"args:$*\"\necho \"probe:$MCP_PROBE\"\nexit 7\n"
	if err := os.WriteFile(filepath.Join(dir, mcpServerName), []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestMCPHandOver: 'acplint mcp' runs acplint-mcp with its flags and
// environment and ends with its exit code, as a process of its own
// (exec) and inside this one (a child).
func TestMCPHandOver(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a shell script as the server")
	}
	dir := fakeMCPServer(t)
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("MCP_PROBE", "passed on")
	want := "args:--root /x -h\nprobe:passed on\n"

	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"mcp", "--root", "/x", "-h"}, strings.NewReader(""), &stdout, &stderr); code != 7 || stdout.String() != want {
		t.Errorf("in process: exit %d, stdout %q, stderr %q; want 7 and %q", code, stdout.String(), stderr.String(), want)
	}

	c := exec.Command(os.Args[0], "mcp", "--root", "/x", "-h")
	c.Env = append(os.Environ(), "ACPLINT_AS_COMMAND=1")
	out, err := c.Output()
	if code := c.ProcessState.ExitCode(); code != 7 || string(out) != want {
		t.Errorf("as a process: exit %d (%v), stdout %q; want 7 and %q", code, err, out, want)
	}
}

// TestMCPServerNotRunnable: a directory named acplint-mcp, a file that
// cannot run, and one found only through a relative PATH entry are not
// the server: 'acplint mcp' says how to install it and exits 2, running
// nothing.
func TestMCPServerNotRunnable(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("permission bits")
	}
	dirAsServer := t.TempDir()
	if err := os.Mkdir(filepath.Join(dirAsServer, mcpServerName), 0o700); err != nil {
		t.Fatal(err)
	}
	notExecutable := t.TempDir()
	if err := os.WriteFile(filepath.Join(notExecutable, mcpServerName), []byte("#!/bin/sh\necho ran\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The working directory holds a runnable acplint-mcp, reachable only
	// through the relative entry ".".
	cwd := fakeMCPServer(t)
	t.Chdir(cwd)
	for name, path := range map[string]string{
		"a directory":           dirAsServer,
		"not executable":        notExecutable,
		"relative PATH entry":   ".",
		"empty PATH entry":      "",
		"relative, then others": "." + string(os.PathListSeparator) + dirAsServer,
	} {
		t.Setenv("PATH", path)
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), []string{"mcp"}, strings.NewReader(""), &stdout, &stderr)
		if code != exitUsage || stdout.Len() > 0 || !strings.Contains(stderr.String(), "go install") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 2, nothing run and how to install", name, code, stdout.String(), stderr.String())
		}
		// Where PATH did find a server, the message must not deny it:
		// it says why the one found is not run.
		if strings.HasPrefix(name, "relative") && !strings.Contains(stderr.String(), "relative PATH entry") {
			t.Errorf("%s: stderr %q does not say the server found was refused for its relative PATH entry", name, stderr.String())
		}
	}
	// With nothing to run, -h still prints the command's help.
	t.Setenv("PATH", dirAsServer)
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"mcp", "-h"}, strings.NewReader(""), &stdout, &stderr); code != exitClean || !strings.Contains(stdout.String(), "acplint-mcp is not installed") {
		t.Errorf("mcp -h without the server: exit %d, stdout %q", code, stdout.String())
	}
}

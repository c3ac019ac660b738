package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// The MCP server is a binary of its own, acplint-mcp: the MCP SDK links
// net/http, crypto/tls and more, whose package inits every other acplint
// process would pay for at start-up (issue 16). 'acplint mcp' stays the
// command that assistants are configured with and hands the process over
// to acplint-mcp.
const (
	mcpServerName    = "acplint-mcp"
	mcpServerInstall = "go install github.com/acplint/acplint/cmd/acplint-mcp@latest"
)

const mcpDoc = `
Mcp serves acplint to coding assistants over the Model Context Protocol
(MCP), on standard input and output. It runs acplint-mcp, a binary of its
own that is installed beside acplint or in PATH, with the same flags and
environment; 'acplint help mcp' prints its tools and flags.

acplint-mcp is not installed. Install it with

	` + mcpServerInstall + `

(or, in a clone of acplint, go install ./cmd/acplint-mcp).
`

func runMCP(ctx context.Context, args []string, e *env) int {
	self, _ := os.Executable() // without it, PATH alone
	server, err := findMCPServer(self)
	if err != nil {
		if askedForHelp(args) {
			fmt.Fprintf(e.stdout, "usage: acplint mcp [flags]\n\n%s", strings.TrimSpace(mcpDoc)+"\n")
			return exitClean
		}
		e.errorf("mcp: %v; install it with: %s (in a clone: go install ./cmd/acplint-mcp)", err, mcpServerInstall)
		return exitUsage
	}
	if e.stdin == os.Stdin && e.stdout == os.Stdout && e.stderr == os.Stderr {
		// The client talks to the server itself: nothing of acplint stays
		// between them (where the system can replace a process).
		code, err := execMCPServer(server, args)
		if err != nil {
			e.errorf("mcp: starting %s: %v", server, err)
			return exitUsage
		}
		return code
	}
	// A caller inside this process (completion reading the flags from
	// -h, tests) gets the server as a child on its own streams.
	return runMCPServer(ctx, server, args, e)
}

// findMCPServer returns the acplint-mcp beside the executable self, where
// a release archive or 'go install' puts it, else the one in PATH.
func findMCPServer(self string) (string, error) {
	name := mcpServerName
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if self != "" {
		beside := filepath.Join(filepath.Dir(self), name)
		if info, err := os.Stat(beside); err == nil && info.Mode().IsRegular() && (runtime.GOOS == "windows" || info.Mode().Perm()&0o111 != 0) {
			return beside, nil
		}
	}
	path, err := exec.LookPath(mcpServerName)
	if errors.Is(err, exec.ErrDot) {
		// Running a program that a relative PATH entry resolved to the
		// current directory is how a checked-out repository hijacks a
		// command; os/exec refuses it, and so does acplint.
		return "", fmt.Errorf("%s is not beside acplint, and PATH finds only %s, through a relative PATH entry, which is not run", mcpServerName, path)
	}
	if err != nil {
		return "", fmt.Errorf("%s is neither beside acplint nor in PATH", mcpServerName)
	}
	return path, nil
}

// runMCPServer runs the server as a child on e's streams and returns its
// exit code.
func runMCPServer(ctx context.Context, server string, args []string, e *env) int {
	cmd := exec.CommandContext(ctx, server, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = e.stdin, e.stdout, e.stderr
	err := cmd.Run()
	var exited *exec.ExitError
	switch {
	case err == nil:
		return exitClean
	case errors.As(err, &exited) && exited.ExitCode() >= 0:
		return exited.ExitCode()
	}
	e.errorf("mcp: %s: %v", server, err)
	return exitUsage
}

// askedForHelp tells whether the flags in args ask for help, as package
// flag reads them.
func askedForHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "--h", "-help", "--help":
			return true
		}
	}
	return false
}

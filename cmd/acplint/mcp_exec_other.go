//go:build !unix

package main

import (
	"errors"
	"os"
	"os/exec"
	"os/signal"
)

// execMCPServer runs the server on this process's own standard handles,
// where a process cannot be replaced, and returns its exit code. An
// interrupt reaches the server from the console; acplint waits for it.
func execMCPServer(server string, args []string) (int, error) {
	signal.Ignore(os.Interrupt)
	cmd := exec.Command(server, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var exited *exec.ExitError
	if errors.As(err, &exited) && exited.ExitCode() >= 0 {
		return exited.ExitCode(), nil
	}
	if err != nil {
		return exitUsage, err
	}
	return exitClean, nil
}

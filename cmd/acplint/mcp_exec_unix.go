//go:build unix

package main

import (
	"os"
	"syscall"
)

// execMCPServer replaces this process with the server, same arguments and
// environment: stdin, stdout and stderr are then the server's own. It
// returns only when the exec fails.
func execMCPServer(server string, args []string) (int, error) {
	return exitUsage, syscall.Exec(server, append([]string{server}, args...), os.Environ())
}

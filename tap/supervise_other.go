//go:build !linux

package tap

import "os/exec"

// Supervise does nothing here: without a parent-death signal a supervisor
// would not learn that the tap died (see supervise_linux.go).
func Supervise() {}

func supervisedCommand([]string) (*exec.Cmd, func() error, bool) { return nil, nil, false }

//go:build unix

package lint

import (
	"os"

	"github.com/acplint/acplint/internal/proctest"
)

// resetPeakRSS starts the process's peak resident memory anew; false
// where the system cannot tell it (peakRSSKiB).
func resetPeakRSS() bool { return proctest.ResetPeak() }

// peakRSSKiB is the process's peak resident memory since resetPeakRSS.
func peakRSSKiB() int64 { return proctest.PeakKiB(os.Getpid()) }

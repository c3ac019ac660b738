//go:build !unix

package lint

func resetPeakRSS() bool { return false }

func peakRSSKiB() int64 { return 0 }

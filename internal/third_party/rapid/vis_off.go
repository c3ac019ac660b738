// This file is acplint's, not upstream's (see README.md in this
// directory).

//go:build !rapidvis

package rapid

import (
	"errors"
	"io"
)

// visWriteHTML stands in for the -rapid.debugvis page of vis.go, which
// links html/template, image/png and compress/flate (whose package inits
// every acplint process would run) for a debugging aid of rapid's own
// developers. Build with -tags rapidvis to have it.
func visWriteHTML(io.Writer, string, []recordedBits) error {
	return errors.New("-rapid.debugvis needs a build with -tags rapidvis")
}

// Package layers holds no code: its test states the module's import graph
// once, as data, and checks the source tree against it (see graph in
// layers_test.go). A package that needs a new edge adds it there, where
// the whole layering can be read and reviewed at once.
package layers

// Command reference is acplint's reference ACP agent: a small agent that
// follows the protocol, for `acplint check -- go run ./conformance/agents/reference`.
// With -defect it shows one deliberate protocol bug instead.
package main

import (
	"os"

	"github.com/acplint/acplint/conformance/agents"
)

func main() {
	os.Exit(agents.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

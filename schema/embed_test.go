package schema

import _ "embed"

//go:embed parity_exceptions.txt
var exceptionsFile []byte

package codec

// NewLineReaderSize exposes the buffer size to the tests.
var NewLineReaderSize = newLineReaderSize

// WithReflection runs f with the generated decoders turned off. No codec
// test runs in parallel, so a package variable is enough.
func WithReflection(f func()) {
	useGenerated = false
	defer func() { useGenerated = true }()
	f()
}

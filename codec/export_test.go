package codec

// NewLineReaderSize exposes the buffer size to the tests.
var NewLineReaderSize = newLineReaderSize

package lint

import "github.com/acplint/acplint/internal/slab"

// WithTinyBatches runs f with batches of one frame whose memory is
// poisoned when it is reused, so that whatever is kept past its batch
// without being copied reads as garbage a few frames later.
func WithTinyBatches(f func()) {
	defer func(n int) { batchLines, slab.Poison = n, false }(batchLines)
	batchLines, slab.Poison = 1, true
	f()
}

// WithOneBatch runs f with the whole input in one batch, which reuses no
// memory at all: the reference for WithTinyBatches.
func WithOneBatch(f func()) {
	defer func(n int) { batchLines = n }(batchLines)
	batchLines = 1 << 30
	f()
}

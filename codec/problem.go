package codec

import "github.com/acplint/acplint/domain"

// The codec reports problems as domain.Problem values, which the protocol
// machine routes to the checks of their rules; these names spare the
// codec's own code the package prefix.
type (
	ProblemKind = domain.ProblemKind
	Problem     = domain.Problem
)

const (
	ProbNotUTF8        = domain.ProbNotUTF8
	ProbBOM            = domain.ProbBOM
	ProbNotJSON        = domain.ProbNotJSON
	ProbBlank          = domain.ProbBlank
	ProbCRLF           = domain.ProbCRLF
	ProbBatch          = domain.ProbBatch
	ProbNotObject      = domain.ProbNotObject
	ProbTooManyValues  = domain.ProbTooManyValues
	ProbDuplicate      = domain.ProbDuplicate
	ProbJSONRPC        = domain.ProbJSONRPC
	ProbEnvelope       = domain.ProbEnvelope
	ProbIDNull         = domain.ProbIDNull
	ProbIDFraction     = domain.ProbIDFraction
	ProbErrorObject    = domain.ProbErrorObject
	ProbMissing        = domain.ProbMissing
	ProbType           = domain.ProbType
	ProbRange          = domain.ProbRange
	ProbEnum           = domain.ProbEnum
	ProbOpenEnum       = domain.ProbOpenEnum
	ProbUnknownVariant = domain.ProbUnknownVariant
	ProbUnknownMember  = domain.ProbUnknownMember
	ProbMeta           = domain.ProbMeta
	ProbNullResult     = domain.ProbNullResult
	ProbTooMany        = domain.ProbTooMany
)

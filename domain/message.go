package domain

import (
	"bytes"
	"encoding/json"
)

// Direction tags a message with the side that sent it.
type Direction uint8

const (
	// DirUnknown marks a message whose sender could not be established.
	DirUnknown Direction = iota
	// FromClient marks client → agent traffic (the agent's stdin).
	FromClient
	// FromAgent marks agent → client traffic (the agent's stdout).
	FromAgent
)

func (d Direction) String() string {
	switch d {
	case FromClient:
		return "client"
	case FromAgent:
		return "agent"
	}
	return "unknown"
}

// Opposite returns the other direction; DirUnknown stays unknown.
func (d Direction) Opposite() Direction {
	switch d {
	case FromClient:
		return FromAgent
	case FromAgent:
		return FromClient
	}
	return DirUnknown
}

// Kind is the JSON-RPC envelope a message uses.
type Kind uint8

const (
	KindInvalid Kind = iota
	KindRequest
	KindNotification
	KindResult
	KindError
)

func (k Kind) String() string {
	switch k {
	case KindRequest:
		return "request"
	case KindNotification:
		return "notification"
	case KindResult:
		return "result"
	case KindError:
		return "error"
	}
	return "invalid"
}

// RequestID is a JSON-RPC id kept as written, so that findings quote and
// the encoder reproduces its exact spelling. Correlation uses Key, which
// compares ids as JSON values: 1 and 1.0 are one id, 1 and "1" are not.
type RequestID struct {
	Raw json.RawMessage
}

// IDKind classifies how an id is spelled.
type IDKind uint8

const (
	IDAbsent IDKind = iota
	IDNull
	IDString
	IDInteger
	IDFraction // a number with a fraction or exponent part
	IDOther    // an object, array or boolean: not a valid id
)

// Kind classifies the id.
func (id RequestID) Kind() IDKind {
	r := bytes.TrimSpace(id.Raw)
	if len(r) == 0 {
		return IDAbsent
	}
	switch c := r[0]; {
	case c == 'n':
		return IDNull
	case c == '"':
		return IDString
	case c == '-' || (c >= '0' && c <= '9'):
		if bytes.ContainsAny(r, ".eE") {
			return IDFraction
		}
		return IDInteger
	}
	return IDOther
}

// Key is the id's canonical form (see idKey), used wherever ids are
// matched: a response with its request, a reused id, a cancel with what it
// cancels. The key of a plain integer id is id.Raw's own bytes, not a copy:
// it is valid while they are, and whoever keeps it past that copies it
// (protocol.Map does).
func (id RequestID) Key() string { return idKey(id.Raw) }

// String renders the id as it appears on the wire.
func (id RequestID) String() string {
	if len(id.Raw) == 0 {
		return "<none>"
	}
	return string(id.Raw)
}

// IDOf returns the id for a number or a string value.
func IDOf(v any) RequestID {
	b, _ := json.Marshal(v)
	return RequestID{Raw: b}
}

// Message is one JSON-RPC message of an ACP connection, decoded.
//
// Params and Result hold the typed value of the method's schema definition
// (for example *InitializeRequest) when the method is known and the value
// decoded as an object; otherwise they are nil and RawParams / RawResult keep
// the member verbatim. Raw* are always set when the member was present, so a
// rule can point into them and the encoder can reproduce what it cannot type.
type Message struct {
	Dir    Direction
	Kind   Kind
	ID     RequestID // absent for notifications
	Method Method    // for responses: the method of the request it answers, when known

	Params    any
	RawParams json.RawMessage
	// ParamsOmitted is set on a decoded request or notification of a
	// known method that had no "params" member. Params then holds the
	// method's params decoded from {}, so that the checks see the
	// method's type and missing required members are reported, and the
	// encoder leaves "params" out again.
	ParamsOmitted bool

	Result    any
	RawResult json.RawMessage

	Error *Error

	// JSONRPC is the "jsonrpc" member as written ("" when absent).
	JSONRPC json.RawMessage
	// Unknown are envelope members JSON-RPC does not define.
	Unknown Members
}

// IsRequest reports whether m expects a response.
func (m *Message) IsRequest() bool { return m.Kind == KindRequest }

// IsResponse reports whether m answers a request.
func (m *Message) IsResponse() bool { return m.Kind == KindResult || m.Kind == KindError }

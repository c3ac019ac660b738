package domain

import "encoding/json"

// Error is the JSON-RPC error object.
type Error struct {
	Code    int64           `json:"code" jsonschema:"required"`
	Message string          `json:"message" jsonschema:"required"`
	Data    json.RawMessage `json:"data,omitempty"`
	Unknown Members         `json:"-"`
}

// ErrorCode is a JSON-RPC or ACP error code.
type ErrorCode int64

// The error codes ACP v1 defines. One table: names, meanings and the
// reserved range all come from here.
const (
	CodeParseError       ErrorCode = -32700
	CodeInvalidRequest   ErrorCode = -32600
	CodeMethodNotFound   ErrorCode = -32601
	CodeInvalidParams    ErrorCode = -32602
	CodeInternalError    ErrorCode = -32603
	CodeRequestCancelled ErrorCode = -32800
	CodeAuthRequired     ErrorCode = -32000
	CodeResourceNotFound ErrorCode = -32002
)

// ErrorCodes names every code ACP v1 defines.
var ErrorCodes = map[ErrorCode]string{
	CodeParseError:       "Parse error",
	CodeInvalidRequest:   "Invalid request",
	CodeMethodNotFound:   "Method not found",
	CodeInvalidParams:    "Invalid params",
	CodeInternalError:    "Internal error",
	CodeRequestCancelled: "Request cancelled",
	CodeAuthRequired:     "Authentication required",
	CodeResourceNotFound: "Resource not found",
}

// Name returns the code's ACP name, or "" for codes ACP does not define.
func (c ErrorCode) Name() string { return ErrorCodes[c] }

// Reserved reports whether c lies in the range JSON-RPC and ACP reserve
// for themselves (-32768 to -32000).
func (c ErrorCode) Reserved() bool { return c >= -32768 && c <= -32000 }

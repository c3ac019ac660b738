package domain

import "encoding/json"

// CancelRequestNotification ($/cancel_request) asks the peer to abandon
// the request with id RequestID; either side may send it. The id is kept as
// written, since correlation must not coerce 1 into "1".
type CancelRequestNotification struct {
	RequestID RequestID       `json:"requestId" jsonschema:"required"`
	Meta      json.RawMessage `json:"_meta"`
	Unknown   Members         `json:"-"`
}

package domain

import "encoding/json"

// AuthenticateRequest asks the agent to run the auth method MethodID.
type AuthenticateRequest struct {
	MethodID AuthMethodID    `json:"methodId" jsonschema:"required"`
	Meta     json.RawMessage `json:"_meta"`
	Unknown  Members         `json:"-"`
}

// AuthenticateResponse reports a successful authenticate.
type AuthenticateResponse struct {
	Meta    json.RawMessage `json:"_meta"`
	Unknown Members         `json:"-"`
}

// LogoutRequest asks the agent to forget the current credentials.
type LogoutRequest struct {
	Meta    json.RawMessage `json:"_meta"`
	Unknown Members         `json:"-"`
}

// LogoutResponse reports a successful logout.
type LogoutResponse struct {
	Meta    json.RawMessage `json:"_meta"`
	Unknown Members         `json:"-"`
}

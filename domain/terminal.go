package domain

import "encoding/json"

// TerminalID names a terminal created by terminal/create.
type TerminalID string

// CreateTerminalRequest starts Command in a client-side terminal.
type CreateTerminalRequest struct {
	SessionID       SessionID          `json:"sessionId" jsonschema:"required"`
	Command         string             `json:"command" jsonschema:"required"`
	Args            Opt[[]string]      `json:"args" jsonschema:"notnull"`
	Env             Opt[[]EnvVariable] `json:"env" jsonschema:"notnull"`
	Cwd             Opt[string]        `json:"cwd"`
	OutputByteLimit Opt[uint64]        `json:"outputByteLimit"`
	Meta            json.RawMessage    `json:"_meta"`
	Unknown         Members            `json:"-"`
}

// EnvVariable is one environment variable; lists of them stand in for maps.
type EnvVariable struct {
	Name    string          `json:"name" jsonschema:"required"`
	Value   string          `json:"value" jsonschema:"required"`
	Meta    json.RawMessage `json:"_meta"`
	Unknown Members         `json:"-"`
}

// CreateTerminalResponse names the new terminal.
type CreateTerminalResponse struct {
	TerminalID TerminalID      `json:"terminalId" jsonschema:"required"`
	Meta       json.RawMessage `json:"_meta"`
	Unknown    Members         `json:"-"`
}

// TerminalOutputRequest asks for a terminal's output so far.
type TerminalOutputRequest struct {
	SessionID  SessionID       `json:"sessionId" jsonschema:"required"`
	TerminalID TerminalID      `json:"terminalId" jsonschema:"required"`
	Meta       json.RawMessage `json:"_meta"`
	Unknown    Members         `json:"-"`
}

// TerminalOutputResponse carries the output and, once the command ended,
// its exit status.
type TerminalOutputResponse struct {
	Output     string                  `json:"output" jsonschema:"required"`
	Truncated  bool                    `json:"truncated" jsonschema:"required"`
	ExitStatus Opt[TerminalExitStatus] `json:"exitStatus"`
	Meta       json.RawMessage         `json:"_meta"`
	Unknown    Members                 `json:"-"`
}

// TerminalExitStatus is how a terminal's command ended.
type TerminalExitStatus struct {
	ExitCode Opt[uint32]     `json:"exitCode"`
	Signal   Opt[string]     `json:"signal"`
	Meta     json.RawMessage `json:"_meta"`
	Unknown  Members         `json:"-"`
}

// ReleaseTerminalRequest frees a terminal, killing its command if needed.
type ReleaseTerminalRequest struct {
	SessionID  SessionID       `json:"sessionId" jsonschema:"required"`
	TerminalID TerminalID      `json:"terminalId" jsonschema:"required"`
	Meta       json.RawMessage `json:"_meta"`
	Unknown    Members         `json:"-"`
}

// ReleaseTerminalResponse reports a released terminal.
type ReleaseTerminalResponse struct {
	Meta    json.RawMessage `json:"_meta"`
	Unknown Members         `json:"-"`
}

// WaitForTerminalExitRequest waits until a terminal's command ends.
type WaitForTerminalExitRequest struct {
	SessionID  SessionID       `json:"sessionId" jsonschema:"required"`
	TerminalID TerminalID      `json:"terminalId" jsonschema:"required"`
	Meta       json.RawMessage `json:"_meta"`
	Unknown    Members         `json:"-"`
}

// WaitForTerminalExitResponse is how the command ended.
type WaitForTerminalExitResponse struct {
	ExitCode Opt[uint32]     `json:"exitCode"`
	Signal   Opt[string]     `json:"signal"`
	Meta     json.RawMessage `json:"_meta"`
	Unknown  Members         `json:"-"`
}

// KillTerminalRequest kills a terminal's command but keeps the terminal.
type KillTerminalRequest struct {
	SessionID  SessionID       `json:"sessionId" jsonschema:"required"`
	TerminalID TerminalID      `json:"terminalId" jsonschema:"required"`
	Meta       json.RawMessage `json:"_meta"`
	Unknown    Members         `json:"-"`
}

// KillTerminalResponse reports a killed command.
type KillTerminalResponse struct {
	Meta    json.RawMessage `json:"_meta"`
	Unknown Members         `json:"-"`
}

package domain

import "encoding/json"

// Member is one JSON object member kept verbatim.
type Member struct {
	Name  string
	Value json.RawMessage
}

// Members are the members of an object that its type does not declare, in
// wire order. They are carried so that a decoded message re-encodes to the
// same JSON, and so that lint rules can report them.
type Members []Member

// Get returns the raw value of the member called name.
func (ms Members) Get(name string) (json.RawMessage, bool) {
	for _, m := range ms {
		if m.Name == name {
			return m.Value, true
		}
	}
	return nil, false
}

// Names lists the member names in wire order.
func (ms Members) Names() []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Name
	}
	return out
}

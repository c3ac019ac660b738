package schemamodel

import "testing"

func TestParseRejectsNonACPSchemas(t *testing.T) {
	for name, doc := range map[string]string{
		"not json":     `{`,
		"no defs":      `{"type":"object"}`,
		"no x-method":  `{"$defs":{"A":{"type":"object"}}}`,
		"two requests": `{"$defs":{"ARequest":{"x-method":"a","x-side":"agent"},"BRequest":{"x-method":"a","x-side":"agent"}}}`,
	} {
		if _, err := Parse(name, []byte(doc), Options{}); err == nil {
			t.Errorf("%s: Parse accepted %s", name, doc)
		}
	}
}

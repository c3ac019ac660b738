package lint

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

func dumpErr(e *jsonschema.ValidationError, depth int) {
	fmt.Printf("%s%T url=%s inst=%v : %s\n", strings.Repeat("  ", depth), e.ErrorKind, e.SchemaURL, e.InstanceLocation, e.ErrorKind.LocalizedString(english))
	for _, c := range e.Causes {
		dumpErr(c, depth+1)
	}
}

func TestDbg(t *testing.T) {
	s, err := LoadSchema("../internal/reference/acp-schema.json")
	if err != nil {
		t.Fatal(err)
	}
	for k, sch := range s.defs {
		if k.Method == "session/request_permission" && k.Kind == "response" {
			v, _ := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(`{"outcome":{"outcome":"approved","optionId":"x"}}`)))
			err := sch.Validate(v)
			var ve *jsonschema.ValidationError
			if errors.As(err, &ve) {
				dumpErr(ve, 0)
			}
		}
	}
}

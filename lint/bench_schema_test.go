package lint

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

	"github.com/acplint/acplint/internal/jsonv"
	"github.com/acplint/acplint/schemamodel"
)

// BenchmarkLintSchemaChecks is the share of BenchmarkLintSchema that --schema
// adds: schemacheck's check of the params of every request and
// notification of the generated transcript (parsed beforehand, as the
// codec hands them over), without reading, decoding or the protocol
// machine. ns/op is per transcript.
func BenchmarkLintSchemaChecks(b *testing.B) {
	schema, err := LoadSchema(stableRef)
	if err != nil {
		b.Fatal(err)
	}
	path, err := benchTranscript()
	if err != nil {
		b.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	type value struct {
		key  schemamodel.Key
		raw  []byte
		tree jsonv.Value
	}
	var values []value
	size := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) != nil || msg.Method == "" || msg.Params == nil {
			continue
		}
		kind := schemamodel.KindNotification
		if msg.ID != nil {
			kind = schemamodel.KindRequest
		}
		tree, err := jsonv.Parse(msg.Params)
		if err != nil {
			b.Fatal(err)
		}
		values = append(values, value{schemamodel.Key{Method: msg.Method, Kind: kind}, msg.Params, tree})
		size += len(msg.Params)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		for i := range values {
			v := &values[i]
			if probs := schema.check.Check(v.key, v.raw, &v.tree, "/params"); len(probs) != 0 {
				b.Fatalf("%s: %s", v.key, probs[0].Detail)
			}
		}
	}
}

package codec_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/acplint/acplint/codec"
	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/internal/jsonv"
	"github.com/acplint/acplint/internal/third_party/rapid"
)

// decoding is everything DecodeLine and DecodeResult make of one line:
// the messages and problems, and for each response the result and
// problems under the result type of every method in turn.
type decoding struct {
	Msgs     []*domain.Message
	Problems []codec.Problem
	Results  []any
	Typed    [][]codec.Problem
	MetaSeen []bool // of each message, then of each typed result
}

func decodeAll(line []byte, methods []*domain.MethodInfo) decoding {
	return decodeAllWith(freshDecode, line, methods)
}

// freshDecode decodes line with codec.DecodeLine.
func freshDecode(line []byte) *codec.Decoded {
	return codec.DecodeLine(codec.Line{Num: 1, Bytes: line})
}

// decodeAllWith is decodeAll with decode in place of DecodeLine. Each
// decoding is copied at once (domain.Detach), so that decode may reuse
// its memory from call to call.
func decodeAllWith(decode func([]byte) *codec.Decoded, line []byte, methods []*domain.MethodInfo) decoding {
	d := decode(line)
	out := decoding{Msgs: domain.Detach(d.Msgs), Problems: domain.Detach(d.Problems)}
	for i := range d.Msgs {
		out.MetaSeen = append(out.MetaSeen, d.MetaSeen(i))
	}
	for i, m := range out.Msgs {
		if m.Kind != domain.KindResult {
			continue
		}
		for _, mi := range methods {
			again := decode(line)
			out.Typed = append(out.Typed, domain.Detach(again.DecodeResult(i, mi)))
			out.Results = append(out.Results, domain.Detach(again.Msgs[i].Result))
			out.MetaSeen = append(out.MetaSeen, again.MetaSeen(i))
		}
	}
	return out
}

// sameDecoding fails t when the generated decoders and the reflective ones
// make anything different of line, its results typed as those of methods.
func sameDecoding(t tb, line []byte, methods []*domain.MethodInfo) {
	t.Helper()
	generated := decodeAll(line, methods)
	var reflective decoding
	codec.WithReflection(func() { reflective = decodeAll(line, methods) })
	if diff := deepDiff(reflective, generated); diff != "" {
		t.Fatalf("%s\ngenerated and reflective decoders differ (-reflective +generated):\n%s", line, diff)
	}
}

// deepDiff is "" when want and got are deeply equal, else cmp.Diff of them.
// It asks reflect.DeepEqual first: on equal values cmp.Diff spent 97% of
// the time of the tests and fuzz targets that compare decodings and lines
// (it compares the elements of nested slices again at each level to align
// them), 25 s without the race detector and over 3 minutes with it for
// the corpus of TestReusedDecodedIsFresh, where DeepEqual takes under a
// second. DeepEqual is the stricter of the two here (no type compared has
// an Equal method, the one thing cmp would use in its place), so nothing
// cmp would reject passes; cmp.Diff still writes the report.
func deepDiff[T any](want, got T) string {
	if reflect.DeepEqual(want, got) {
		return ""
	}
	if d := cmp.Diff(want, got); d != "" {
		return d
	}
	return fmt.Sprintf("reflect.DeepEqual tells them apart, cmp.Diff does not:\n%#v\n%#v", want, got)
}

// TestReusedDecodedIsFresh: a BatchDecoder reuses its Decoded values,
// messages and params from batch to batch; a line decoded in one that
// held other lines before must come out as DecodeLine makes it.
func TestReusedDecodedIsFresh(t *testing.T) {
	lines := allLines(t)
	var bd codec.BatchDecoder
	reused := func(line []byte) *codec.Decoded {
		bd.Reset()
		return bd.DecodeLine(codec.Line{Num: 1, Bytes: line})
	}
	for _, line := range lines {
		want := decodeAll(line, resultMethods)
		if diff := deepDiff(want, decodeAllWith(reused, line, resultMethods)); diff != "" {
			t.Fatalf("%s\nreused Decoded differs from a fresh one (-fresh +reused):\n%s", line, diff)
		}
	}
}

// allLines returns every line of the codec's testdata and problem table,
// of the golden corpus, and of a generated transcript.
func allLines(t *testing.T) [][]byte {
	lines := seedLines(t)
	cases, _ := filepath.Glob("../conformance/testdata/*/*.txtar")
	for _, name := range cases {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range txtar.Parse(data).Files {
			if f.Name == "transcript.ndjson" {
				lines = append(lines, bytes.Split(f.Data, []byte("\n"))...)
			}
		}
	}
	generated, _ := benchTranscript(t)
	lines = append(lines, generated[:min(len(generated), 600)]...)
	if len(lines) < 1000 {
		t.Fatalf("only %d lines to compare", len(lines))
	}
	return lines
}

// TestGeneratedMatchesReflective holds decode_gen.go to the reflective
// decoder on every line of the codec's testdata and problem table, of the
// golden corpus, and of a generated transcript.
func TestGeneratedMatchesReflective(t *testing.T) {
	for _, line := range allLines(t) {
		sameDecoding(t, line, resultMethods)
	}
}

// TestGeneratedMatchesReflectiveOnRewrites compares the two decoders on
// the messages of every method, valid ones rewritten with shuffled
// members and undeclared ones, and with members swapped for values of
// another JSON type, so that every problem path runs.
func TestGeneratedMatchesReflectiveOnRewrites(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		_, _, src, tree := drawMessage(rt)
		var b bytes.Buffer
		if rapid.Bool().Draw(rt, "corrupt") {
			corrupt(rt, &b, src, tree, "msg")
		} else {
			rewrite(rt, &b, src, tree, "msg")
		}
		sameDecoding(rt, b.Bytes(), resultMethods)
	})
}

// corrupt writes v again with, now and then, a value replaced by one of
// another JSON type, null, a fractional or huge number, or an unknown
// enum string, and a member repeated.
func corrupt(rt *rapid.T, b *bytes.Buffer, src []byte, v *jsonv.Value, label string) {
	if rapid.IntRange(0, 9).Draw(rt, label+"-corrupt") == 0 {
		b.WriteString(rapid.SampledFrom([]string{`null`, `"x"`, `1.5`, `-1`, `1e400`, `99999999999999999999`, `true`, `{}`, `[]`, `[1]`, `{"type":"x"}`}).Draw(rt, label+"-with"))
		return
	}
	switch v.Kind {
	case jsonv.Object:
		b.WriteByte('{')
		for i := range v.Members() {
			if i > 0 {
				b.WriteByte(',')
			}
			mem := &v.Members()[i]
			key := jsonString(mem.Key)
			b.Write(key)
			b.WriteByte(':')
			corrupt(rt, b, src, &mem.Value, label+"."+mem.Key)
			if rapid.IntRange(0, 19).Draw(rt, label+"."+mem.Key+"-twice") == 0 {
				b.WriteByte(',')
				b.Write(key)
				b.WriteByte(':')
				b.Write(mem.Value.Raw(src))
			}
		}
		b.WriteByte('}')
	case jsonv.Array:
		b.WriteByte('[')
		for i := range v.Elems() {
			if i > 0 {
				b.WriteByte(',')
			}
			corrupt(rt, b, src, &v.Elems()[i], label+"[]")
		}
		b.WriteByte(']')
	default:
		b.Write(v.Raw(src))
	}
}

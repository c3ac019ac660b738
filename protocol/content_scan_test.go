package protocol

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"testing"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/internal/jsonv"
	"github.com/acplint/acplint/schema"
)

// The one-pass word scan behind ctx.rawMentions agrees with a plain search
// for each word, wherever the words sit.
func TestWordsInMatchesContains(t *testing.T) {
	raws := []string{
		``, `"`, `{}`, `{"data":"x"}`, `{"x":"data"}`, `{"blob":1,"traceparent":"00"}`,
		`{"text":"say \"data\" and \"baggage"}`, `{"_meta":{"tracestate":"a=b"}}`,
		`"data`, `data"`, `{"dat":"a"}`, `{"trace":"parent","baggage"`,
	}
	for _, raw := range raws {
		found := wordsIn([]byte(raw), scannedWords)
		for i, w := range scannedWords {
			if got, want := found&(1<<i) != 0, bytes.Contains([]byte(raw), []byte(w)); got != want {
				t.Errorf("%s: %s found = %v, want %v", raw, w, got, want)
			}
		}
	}
}

// mentionsMeta agrees with a plain search for "_meta", quotes included.
func TestMentionsMetaMatchesContains(t *testing.T) {
	for _, raw := range []string{
		``, `"`, `_meta"`, `"_meta"`, `x_meta"`, `{"_meta":{}}`, `{"a":"b_meta","_meta":1}`,
		`{"a":"x_meta"}`, `{"a_meta":1}`, `"_meta`, `{"t":"\"_meta\""}`, `_meta"_meta"`,
	} {
		if got, want := mentionsMeta([]byte(raw)), bytes.Contains([]byte(raw), []byte(`"_meta"`)); got != want {
			t.Errorf("mentionsMeta(%s) = %v, want %v", raw, got, want)
		}
	}
}

// typeMayHoldBinary agrees with the schema: a method's params or result
// can hold base64 content exactly when its definition reaches
// ImageContent, AudioContent or BlobResourceContents through $refs. (schema.json is
// generated from the same Go types, but the graph it is walked on here is
// JSON, so a type walk that missed a kind of member would show.)
func TestHoldsBinaryMatchesSchema(t *testing.T) {
	var doc struct {
		Defs map[string]json.RawMessage `json:"$defs"`
	}
	if err := json.Unmarshal(schema.JSON, &doc); err != nil {
		t.Fatal(err)
	}
	refs := regexp.MustCompile(`"#/\$defs/([A-Za-z0-9_]+)"`)
	var reaches func(def string, seen map[string]bool) bool
	reaches = func(def string, seen map[string]bool) bool {
		if def == "ImageContent" || def == "AudioContent" || def == "BlobResourceContents" {
			return true
		}
		if seen[def] {
			return false
		}
		seen[def] = true
		for _, m := range refs.FindAllSubmatch(doc.Defs[def], -1) {
			if reaches(string(m[1]), seen) {
				return true
			}
		}
		return false
	}
	var some [2]bool // some type holds binary, some does not
	for _, mi := range domain.Methods {
		for _, side := range []struct {
			def      string
			newValue func() any
		}{{mi.ParamsDef, mi.NewParams}, {mi.ResultDef, mi.NewResult}} {
			if side.newValue == nil {
				continue
			}
			if _, ok := doc.Defs[side.def]; !ok {
				t.Fatalf("%s: schema.json has no $defs/%s", mi.Name, side.def)
			}
			want := reaches(side.def, map[string]bool{})
			if got := typeMayHoldBinary(side.newValue()); got != want {
				t.Errorf("%s (%s): typeMayHoldBinary = %v, schema says %v", mi.Name, side.def, got, want)
			}
			some[boolIndex(want)] = true
		}
	}
	if !some[0] || !some[1] {
		t.Errorf("expected methods both with and without base64 content; got %v", some)
	}
}

func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}

// mayCarryBinary never rules out an update that holds base64 content: for
// every session/update of the golden corpus and of a generated
// transcript, and for tool calls built to hold each kind of content, an
// update in which the walk of checkBase64 meets image, audio or blob
// content must be one that mayCarryBinary lets through.
func TestMayCarryBinaryRulesOutOnlyTextAndShapes(t *testing.T) {
	var updates []domain.SessionUpdate
	events := benchAndCorpusEvents(t)
	for _, ev := range events {
		if ev.Msg == nil {
			continue
		}
		if n, ok := ev.Msg.Params.(*domain.SessionNotification); ok && n.Update != nil {
			updates = append(updates, n.Update)
		}
	}
	image := domain.Content{Content: domain.ImageContent{Data: "!", MimeType: "image/png"}}
	text := domain.Content{Content: domain.TextContent{Text: "t"}}
	for _, content := range [][]domain.ToolCallContent{
		{image}, {text, image}, {domain.Diff{Path: "/a"}, image}, {domain.Terminal{}, text},
		{domain.UnknownToolCallContent{Raw: []byte(`{"type":"x","data":"!"}`)}},
	} {
		updates = append(updates,
			domain.ToolCall{Content: domain.Some(content)},
			domain.ToolCallUpdate{Content: domain.Some(content)})
	}
	holding := 0
	for _, u := range updates {
		found := false
		eachStruct(reflect.ValueOf(u), "", func(v reflect.Value, _ jsonv.Pointer) {
			found = found || slices.Contains(binaryTypes, v.Type())
		})
		if found {
			holding++
			if !mayCarryBinary(u) {
				t.Errorf("mayCarryBinary(%T) = false for an update holding base64 content: %+v", u, u)
			}
		}
	}
	if holding < 6 {
		t.Fatalf("only %d of %d updates hold base64 content; the test needs examples", holding, len(updates))
	}
}

// paramsMayCarryBinary never rules out params that hold base64 content:
// for the params of every message of the golden corpus and of a generated
// transcript, and for prompts and permission requests built to hold each
// kind of content, params in which the walk of checkBase64 meets image,
// audio or blob content must be ones that paramsMayCarryBinary lets
// through. It judges prompts and permission requests by one member each,
// so no other member of theirs may reach such content.
func TestParamsMayCarryBinaryRulesOutOnlyTextAndLinks(t *testing.T) {
	for typ, judged := range map[reflect.Type]string{
		reflect.TypeFor[domain.PromptRequest]():            "Prompt",
		reflect.TypeFor[domain.RequestPermissionRequest](): "ToolCall",
		reflect.TypeFor[domain.ToolCallUpdate]():           "Content",
	} {
		for i := range typ.NumField() {
			f := typ.Field(i)
			if f.Name != judged && f.IsExported() && f.Tag.Get("json") != "-" && typeReaches(f.Type, binaryTypes, map[reflect.Type]bool{}) {
				t.Errorf("%s.%s can hold base64 content, but paramsMayCarryBinary judges only %s", typ.Name(), f.Name, judged)
			}
		}
	}
	var params []any
	events := benchAndCorpusEvents(t)
	for _, ev := range events {
		if ev.Msg != nil && ev.Msg.Params != nil {
			params = append(params, ev.Msg.Params)
		}
	}
	image := domain.ImageContent{Data: "!", MimeType: "image/png"}
	blob := domain.EmbeddedResource{Resource: domain.BlobResourceContents{URI: "file:///a", Blob: "!"}}
	text := domain.TextContent{Text: "t"}
	link := domain.ResourceLink{URI: "file:///a", Name: "a"}
	for _, prompt := range [][]domain.ContentBlock{{image}, {text, link, blob}, {link, domain.AudioContent{Data: "!"}}} {
		params = append(params, &domain.PromptRequest{Prompt: prompt})
	}
	for _, content := range [][]domain.ToolCallContent{{domain.Content{Content: image}}, {domain.Diff{Path: "/a"}, domain.Content{Content: blob}}} {
		params = append(params, &domain.RequestPermissionRequest{ToolCall: domain.ToolCallUpdate{Content: domain.Some(content)}})
	}
	holding, ruledOut := 0, 0
	for _, v := range params {
		found := false
		eachStruct(reflect.ValueOf(v), "", func(v reflect.Value, _ jsonv.Pointer) {
			found = found || slices.Contains(binaryTypes, v.Type())
		})
		if found {
			holding++
			if !paramsMayCarryBinary(v) {
				t.Errorf("paramsMayCarryBinary(%T) = false for params holding base64 content: %+v", v, v)
			}
		} else if !paramsMayCarryBinary(v) {
			ruledOut++
		}
	}
	if holding < 5 || ruledOut == 0 {
		t.Fatalf("%d of %d params hold base64 content and %d are ruled out; the test needs examples of both", holding, len(params), ruledOut)
	}
}

// benchAndCorpusEvents is the benchmark's generated transcript followed by
// every golden transcript, as events.
func benchAndCorpusEvents(t *testing.T) []Event {
	t.Helper()
	events, err := benchEvents()
	if err != nil {
		t.Fatal(err)
	}
	cases, _ := filepath.Glob("../conformance/testdata/*/*.txtar")
	for _, name := range cases {
		events = append(events, corpusEvents(t, name)...)
	}
	return events
}

package codec_test

import (
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"

	"github.com/acplint/acplint/codec"
	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/internal/third_party/rapid"
)

// memoryOf collects the address of the first byte of every non-empty
// string and slice, and of every pointer's target, within v.
func memoryOf(v reflect.Value, into map[uintptr]bool) {
	switch v.Kind() {
	case reflect.String:
		if v.Len() > 0 {
			into[uintptr(unsafe.Pointer(unsafe.StringData(v.String())))] = true
		}
	case reflect.Pointer:
		if !v.IsNil() {
			into[v.Pointer()] = true
			memoryOf(v.Elem(), into)
		}
	case reflect.Interface:
		if !v.IsNil() {
			memoryOf(v.Elem(), into)
		}
	case reflect.Slice:
		if v.Len() > 0 {
			into[v.Pointer()] = true
		}
		for i := range v.Len() {
			memoryOf(v.Index(i), into)
		}
	case reflect.Array:
		for i := range v.Len() {
			memoryOf(v.Index(i), into)
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			memoryOf(it.Key(), into)
			memoryOf(it.Value(), into)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			memoryOf(v.Field(i), into)
		}
	}
}

// TestDetachSharesNothing: domain.Detach copies a typed value whole; the
// copy equals it and shares no memory with it.
func TestDetachSharesNothing(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		_, typed, src := drawTyped(rt)
		c := domain.Detach(typed)
		if diff := cmp.Diff(typed, c); diff != "" {
			rt.Fatalf("the copy differs (-value +copy):\n%s", diff)
		}
		orig, copied := map[uintptr]bool{}, map[uintptr]bool{}
		memoryOf(reflect.ValueOf(typed), orig)
		memoryOf(reflect.ValueOf(c), copied)
		for p := range copied {
			if orig[p] {
				rt.Fatalf("the copy shares memory at %#x with the value\n%s", p, src)
			}
		}
	})
}

// TestBatchPoolsUnionArms: nearly every line is a session/update holding
// a ContentBlock, and boxing the two union arms of each was half of what
// lint allocated. A warm BatchDecoder keeps them in memory it reuses, so
// a batch of such lines decodes with no allocation per line.
func TestBatchPoolsUnionArms(t *testing.T) {
	line := []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}`)
	const lines = 64
	var bd codec.BatchDecoder
	batch := func() {
		bd.Reset()
		for range lines {
			if d := bd.DecodeLine(codec.Line{Num: 1, Bytes: line}); len(d.Problems) > 0 || d.Msgs[0].Params == nil {
				t.Fatalf("decoded with problems %v", d.Problems)
			}
		}
	}
	batch()
	if n := testing.AllocsPerRun(10, batch); n >= lines {
		t.Errorf("a warm batch of %d session/update lines allocates %v times", lines, n)
	}
}

// TestBatchPoolsParamsAndSlices: a request's params, a response's result,
// the arrays of a plan or of a tool call's content, and the arms of tool
// call content and permission outcomes come from a warm BatchDecoder's
// pools too (the machine copies what it keeps of them), so lines of them
// decode with no allocation per line.
func TestBatchPoolsParamsAndSlices(t *testing.T) {
	lines := [][]byte{
		[]byte(`{"jsonrpc":"2.0","id":3,"method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"t1","content":[{"type":"diff","path":"/a","oldText":"x","newText":"y"},{"type":"content","content":{"type":"text","text":"hi"}}]},"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"}]}}`),
		[]byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"plan","entries":[{"content":"a","priority":"high","status":"pending"},{"content":"b","priority":"low","status":"completed"}]}}}`),
		[]byte(`{"jsonrpc":"2.0","id":4,"method":"fs/write_text_file","params":{"sessionId":"s1","path":"/a","content":"text"}}`),
		[]byte(`{"jsonrpc":"2.0","id":3,"result":{"outcome":{"outcome":"selected","optionId":"allow"}}}`),
	}
	permission, _ := domain.LookupMethod(domain.MethodSessionRequestPermission)
	const rounds = 16
	var bd codec.BatchDecoder
	batch := func() {
		bd.Reset()
		for range rounds {
			for i, line := range lines {
				d := bd.DecodeLine(codec.Line{Num: i + 1, Bytes: line})
				if i == 3 {
					d.DecodeResult(0, permission)
				}
				if len(d.Problems) > 0 || (d.Msgs[0].Params == nil && d.Msgs[0].Result == nil) {
					t.Fatalf("line %d decoded with problems %v", i+1, d.Problems)
				}
			}
		}
	}
	batch()
	if n := testing.AllocsPerRun(10, batch); n >= rounds {
		t.Errorf("a warm batch of %d lines allocates %v times", rounds*len(lines), n)
	}
}

// TestBatchArmPoolsStayBounded: a line that is a JSON-RPC batch of many
// session/updates fills the arm pools far beyond a usual batch; the pools
// must not keep that memory for the batches after it.
func TestBatchArmPoolsStayBounded(t *testing.T) {
	update := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}`
	huge := []byte("[" + strings.Repeat(update+",", 20000) + update + "]")
	small := []byte(update)
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var bd codec.BatchDecoder
	bd.DecodeLine(codec.Line{Num: 1, Bytes: huge})
	bd.Reset()
	bd.DecodeLine(codec.Line{Num: 2, Bytes: small}) // the huge line's Decoded is reused
	bd.Reset()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	// 20,000 arms of each of the two unions take several MiB.
	if held := int64(m.HeapAlloc) - int64(base.HeapAlloc); held > 2<<20 {
		t.Errorf("after a batch of 20,000 updates and a reset the decoder holds %d bytes", held)
	}
	runtime.KeepAlive(&bd)
}

package protocol

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/internal/jsonv"
)

// checkParamsBase64 and checkResultBase64 judge the base64 of a message's
// params and result (ACP-CONT-002). The reflective walk is the costly part
// of linting a message. The types rule out most messages
// (typeMayHoldBinary, mayCarryBinary), and the raw bytes tell cheaply
// whether the rest have any base64 member to look at.
func checkParamsBase64(p *Phase, c *ctx) {
	if paramsMayCarryBinary(c.m.Params) && c.rawMentions(c.m.RawParams, `"data"`, `"blob"`) {
		checkBase64(c, reflect.ValueOf(c.m.Params), "/params")
	}
}

// paramsMayCarryBinary reports whether params can hold image or audio
// data or a resource blob. A session/update, most messages, is judged by
// its update alone; a prompt and a permission request, the other params
// whose type may hold them, by their content blocks, which are mostly
// text and links: the scan of their bytes would read every prompt and
// every diff a permission request shows. Other params are judged by
// their type.
func paramsMayCarryBinary(params any) bool {
	switch v := params.(type) {
	case *domain.SessionNotification:
		return v != nil && mayCarryBinary(v.Update)
	case *domain.PromptRequest:
		if v == nil {
			return false
		}
		for _, b := range v.Prompt {
			switch b.(type) {
			case domain.TextContent, domain.ResourceLink:
			default:
				return true
			}
		}
		return false
	case *domain.RequestPermissionRequest:
		return v != nil && toolContentMayCarryBinary(v.ToolCall.Content.Val)
	}
	return typeMayHoldBinary(params)
}

func checkResultBase64(p *Phase, c *ctx, _ Pending) {
	if c.succeeded() && typeMayHoldBinary(c.m.Result) && c.rawMentions(c.m.RawResult, `"data"`, `"blob"`) {
		checkBase64(c, reflect.ValueOf(c.m.Result), "/result")
	}
}

// binaryTypes are the types whose base64 checkBase64 judges.
var binaryTypes = []reflect.Type{
	reflect.TypeFor[domain.ImageContent](),
	reflect.TypeFor[domain.AudioContent](),
	reflect.TypeFor[domain.BlobResourceContents](),
}

// binaryReach caches, for each params or result type met, whether a
// value of it can contain one of binaryTypes (typeReaches). Most cannot
// (fs, terminal, session setup, most results), and for those the raw
// filter need not read the bytes at all. Each type is walked on its first
// message, not every method's at once: a short transcript meets a few.
var binaryReach sync.Map // reflect.Type -> bool

// typeMayHoldBinary reports whether v, typed params or a typed result, can
// contain image or audio data or a resource blob; true for a nil v, whose
// type says nothing.
//
// The params and results of the methods of domain.Methods are answered
// from binaryOfMethodType, generated from typeReaches: the walk took ~0.5M
// instructions of a first lint (issue 16). Other types are walked here.
//
//go:generate go test -run TestBinaryGenIsCurrent -update-binary
func typeMayHoldBinary(v any) bool {
	if holds, known := binaryOfMethodType(v); known {
		return holds
	}
	t := reflect.TypeOf(v)
	if t == nil {
		return true
	}
	if holds, ok := binaryReach.Load(t); ok {
		return holds.(bool)
	}
	holds := typeReaches(t, binaryTypes, map[reflect.Type]bool{})
	binaryReach.Store(t, holds)
	return holds
}

// typeReaches reports whether a value of type t can contain a value of one
// of targets, along the paths eachStruct walks: pointers, exported members
// (json.RawMessage and "-" members aside), Opt values, slices, maps, and
// every variant of a union. An interface that is not a union could hold
// anything. seen breaks the cycles of recursive types.
func typeReaches(t reflect.Type, targets []reflect.Type, seen map[reflect.Type]bool) bool {
	if slices.Contains(targets, t) {
		return true
	}
	if seen[t] {
		return false
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		return t != rawMessageType && t.Elem().Kind() != reflect.Uint8 && typeReaches(t.Elem(), targets, seen)
	case reflect.Interface:
		u, ok := domain.UnionOf(t)
		if !ok {
			return true
		}
		for _, v := range u.Variants {
			if typeReaches(v.Type, targets, seen) {
				return true
			}
		}
		return u.Default != nil && typeReaches(u.Default, targets, seen)
	case reflect.Struct:
		for i := range t.NumField() {
			sf := t.Field(i)
			if sf.IsExported() && sf.Type != rawMessageType && sf.Tag.Get("json") != "-" && typeReaches(sf.Type, targets, seen) {
				return true
			}
		}
	}
	return false
}

// mayCarryBinary reports whether an update can hold image or audio data
// or a resource blob. Most updates of a turn are text chunks, plans and
// usage, which the types alone rule out without looking at the bytes.
func mayCarryBinary(u domain.SessionUpdate) bool {
	switch u := u.(type) {
	case domain.AgentMessageChunk:
		return !isText(u.Content)
	case domain.AgentThoughtChunk:
		return !isText(u.Content)
	case domain.UserMessageChunk:
		return !isText(u.Content)
	case domain.ToolCall:
		return toolContentMayCarryBinary(u.Content.Val)
	case domain.ToolCallUpdate:
		return toolContentMayCarryBinary(u.Content.Val)
	case domain.Plan, domain.UsageUpdate, domain.AvailableCommandsUpdate, domain.CurrentModeUpdate,
		domain.ConfigOptionUpdate, domain.SessionInfoUpdate:
		return false
	}
	return true
}

// toolContentMayCarryBinary reports whether tool call content can hold
// image or audio data or a resource blob: diffs and terminals cannot, and
// most tool calls carry only those or text.
func toolContentMayCarryBinary(content []domain.ToolCallContent) bool {
	for _, item := range content {
		switch item := item.(type) {
		case domain.Content:
			if !isText(item.Content) {
				return true
			}
		case domain.Diff, domain.Terminal:
		default:
			return true
		}
	}
	return false
}

func isText(b domain.ContentBlock) bool {
	_, ok := b.(domain.TextContent)
	return ok
}

// checkBase64 reports image and audio data and resource blobs that are not
// base64 (ACP-CONT-002), wherever content blocks occur in a message:
// prompts, message chunks, tool call content, permission requests.
func checkBase64(c *ctx, root reflect.Value, prefix jsonv.Pointer) {
	eachStruct(root, prefix, func(v reflect.Value, ptr jsonv.Pointer) {
		var what, member, data string
		switch b := v.Interface().(type) {
		case domain.ImageContent:
			what, member, data = "image data", "data", b.Data
		case domain.AudioContent:
			what, member, data = "audio data", "data", b.Data
		case domain.BlobResourceContents:
			what, member, data = "resource blob", "blob", b.Blob
		default:
			return
		}
		if why := notBase64(data); why != "" {
			c.add(findings.CONTBadBase64, string(ptr.Key(member)), "%s is not base64 (%s); the receiver fails when it decodes the content to show it or pass it to a model", what, why)
		}
	})
}

// notBase64 says why s is not standard base64, or "" when it is. Padding
// may be left out, as several encoders do; line breaks, the URL-safe
// alphabet and data: URLs are refused because model APIs refuse them.
func notBase64(s string) string {
	if strings.HasPrefix(s, "data:") {
		return "it is a data: URL; send only the part after the comma, with the type in mimeType"
	}
	if _, err := base64.StdEncoding.DecodeString(s); err == nil {
		return ""
	}
	if _, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "=")); err == nil && len(strings.TrimRight(s, "=")) == len(s) {
		return ""
	}
	for i, r := range s {
		switch {
		case r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '+', r == '/', r == '=':
		case r == '\n' || r == '\r':
			return "it contains a line break at byte " + strconv.Itoa(i)
		case r == '-' || r == '_':
			return "it uses the URL-safe alphabet (" + string(r) + " at byte " + strconv.Itoa(i) + ")"
		default:
			return "character " + strconv.QuoteRune(r) + " at byte " + strconv.Itoa(i)
		}
	}
	return "its length or padding is wrong"
}

// scannedWords are the member names the raw filters of the checks look
// for. One pass over the params or result of a message finds all of them,
// and the checks share it (ctx.rawMentions).
var scannedWords = []string{`"data"`, `"blob"`, `"traceparent"`, `"tracestate"`, `"baggage"`}

// rawScan is what one pass over a raw value found.
type rawScan struct {
	raw   []byte
	found uint32 // bit i: scannedWords[i] occurs
	done  bool
}

// rawMentions reports whether raw, the params or result of the current
// message, contains any of words: a cheap filter before a walk over the
// typed value. A false positive only costs time.
func (c *ctx) rawMentions(raw []byte, words ...string) bool {
	found := c.scan(raw)
	for _, w := range words {
		i := slices.Index(scannedWords, w)
		if i < 0 {
			if bytes.Contains(raw, []byte(w)) {
				return true
			}
			continue
		}
		if found&(1<<i) != 0 {
			return true
		}
	}
	return false
}

// scan returns which scannedWords raw contains, scanning it once per
// message.
func (c *ctx) scan(raw []byte) uint32 {
	if len(raw) == 0 {
		return 0
	}
	for i := range c.scans {
		sc := &c.scans[i]
		if sc.done && len(sc.raw) == len(raw) && &sc.raw[0] == &raw[0] {
			return sc.found
		}
	}
	found := wordsIn(raw, scannedWords)
	for i := range c.scans {
		if sc := &c.scans[i]; !sc.done {
			*sc = rawScan{raw: raw, found: found, done: true}
			break
		}
	}
	return found
}

// wordsIn returns which of words (each starting with '"') occur in raw, as
// a bit set: one pass from quote to quote instead of one search per word.
func wordsIn(raw []byte, words []string) uint32 {
	var found uint32
	all := uint32(1)<<len(words) - 1
	// The second bytes of the words, as a set: most quotes in raw are
	// followed by none of them, and are passed after one test.
	var second [256 / 64]uint64
	for _, w := range words {
		second[w[1]/64] |= 1 << (w[1] % 64)
	}
	for i := 0; found != all; i++ {
		j := bytes.IndexByte(raw[i:], '"')
		if j < 0 || i+j+1 >= len(raw) {
			break
		}
		i += j
		rest := raw[i:]
		if c := rest[1]; second[c/64]&(1<<(c%64)) == 0 {
			continue
		}
		for k, w := range words {
			if len(rest) >= len(w) && rest[1] == w[1] && string(rest[:len(w)]) == w {
				found |= 1 << k
			}
		}
	}
	return found
}

// The shapes of content blocks (ACP-CONT-001), codec problems.

func contentProblem(p *Phase, c *ctx, pr problem) {
	c.add(findings.CONTShape, pr.Pointer, "%s", pr.withDrop(fmt.Sprintf("content block: %s; the receiver cannot render it or pass it to a model", pr.Detail)))
}

func resourceWithoutBodyProblem(p *Phase, c *ctx, pr problem) {
	c.add(findings.CONTShape, pr.Pointer, "%s", pr.withDrop("embedded resource has neither \"text\" nor \"blob\"; it needs exactly one, so the receiver has no content to use"))
}

func resourceWithTwoBodiesProblem(p *Phase, c *ctx, pr problem) {
	c.add(findings.CONTShape, pr.Pointer, "embedded resource carries both \"text\" and \"blob\"; it must have exactly one, and receivers read it as a text resource and ignore the blob")
}

// contentDefs are the schema definitions of content blocks.
var contentDefs = []string{
	"ContentBlock", "TextContent", "ImageContent", "AudioContent", "ResourceLink", "EmbeddedResource",
	"EmbeddedResourceResource", "TextResourceContents", "BlobResourceContents",
}

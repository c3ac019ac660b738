package tap

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/acplint/acplint/codec"
	"github.com/acplint/acplint/internal/jsonv"
)

// Redacted replaces each secret value in a recording.
const Redacted = "[REDACTED]"

// Redact returns line with secret values replaced by "[REDACTED]", leaving
// every other byte as it was, so the recording still lints the same: a
// redacted JSON string stays a JSON string, and a valid JSON line stays
// valid. Only string values change; the structure, numbers, booleans and
// member names never do.
//
// What is replaced, in a line that is JSON (after an optional UTF-8 BOM):
//   - every string inside the value of a member whose name says it holds a
//     credential: token, apiKey, password, secret, authorization,
//     credential, privateKey, cookie, bearer, accessKeyId, sessionKey,
//     sshKey, and the exact names auth, key and pass (any case, with or
//     without "_", "-" or "."), whether the value is a string, an object or
//     an array, and for every duplicate of the member;
//   - MCP server environment variables and HTTP headers: under "env" or
//     "headers", every string of each {"name","value"} entry but the name
//     (duplicate "value" members included), or every value of an object
//     map; and the "value" of any {"name","value"} object whose name looks
//     secret (GITHUB_TOKEN);
//   - in an "args" array, the element after a flag whose name looks secret
//     ("--token", "X") and the part after "=" of "--api-key=X".
//
// In every line, JSON or not (a truncated line, a line cut mid-string,
// text on stdout), the raw text is also searched for:
//   - well-known token formats: GitHub (ghp_, gho_, ghu_, ghs_, ghr_,
//     github_pat_), OpenAI/Anthropic-style sk-…, Slack xox?-…, AWS access
//     key ids (AKIA…, ASIA…), GitLab glpat-…, Google AIza…, JWTs (eyJ….eyJ…),
//     "Bearer …" and "Basic …" credentials, and PEM private key blocks;
//   - the password of a URL's userinfo (https://user:PASS@host) and query
//     values whose parameter name looks secret (?api_key=…, &token=…);
//   - "--secret-flag=value" and "--secret-flag value" in command lines
//     held in strings (two dashes: "-p value" is too ambiguous), and
//     variable assignments "GITHUB_TOKEN=value" (env GITHUB_TOKEN=… agent);
//   - "name": "value" pairs whose name looks secret, also inside JSON
//     escaped into a string (\"token\":\"…\") and in a line that is not
//     JSON, up to the end of a line cut mid-value.
//
// The members of a "properties" object (a JSON Schema, as in an
// elicitation's requestedSchema) are not judged by their names. A line
// with more values than acplint parses of a line is not parsed: every
// string value below its top level is replaced (redactUnparsed).
//
// Limits: redaction recognises names and formats, not secrets. It errs
// towards redacting: a "token" or "key" that is no credential (an LSP
// progress token, a telemetry attribute key) is replaced too. A secret
// under an innocuous name in a format it does not know (a password in a
// prompt's prose, a numeric PIN, a token of an unknown vendor) is kept; a
// token written with JSON escapes (\u0067hp_…) or split across two lines
// is not seen. Member names are never changed, even when they are
// secrets, and neither are numbers. What crossed the
// pipe is never redacted: forwarding is byte for byte.
func Redact(line []byte) []byte {
	if out, isJSON := redactJSON(line); isJSON {
		return out
	}
	// Not JSON: there is no validity to keep, so the patterns run over the
	// whole line, across what would be strings.
	spans := textSecrets(line, 0, len(line), nil)
	if len(spans) == 0 {
		return line
	}
	out := replaceSpans(line, spans)
	// A secret can be what made the line invalid (a raw control character
	// in its value): once it is replaced, the line may be JSON, and then
	// the JSON rules apply too, or redacting twice would change it again.
	if again, isJSON := redactJSON(out); isJSON {
		return again
	}
	return out
}

// redactJSON redacts line by the JSON rules; isJSON is false, and nothing
// is done, when line (after a byte order mark) is not one JSON value.
func redactJSON(line []byte) (out []byte, isJSON bool) {
	body, offset := line, 0
	if bytes.HasPrefix(body, utf8BOM) {
		body, offset = body[len(utf8BOM):], len(utf8BOM)
	}
	// A line with more values than acplint parses of a line (by default)
	// is redacted as text, not parsed into a tree many times its size:
	// the tap must not be what runs out of memory.
	v, err := jsonv.ParseMax(body, codec.MaxValues(codec.DefaultMaxLine))
	if _, tooMany := err.(*jsonv.TooManyValuesError); tooMany {
		return redactUnparsed(line, offset), true
	}
	if err != nil {
		return nil, false
	}
	r := redactor{offset: offset, line: line, text: mayHoldText(line)}
	r.value(&v, "")
	if len(r.spans) == 0 {
		return line, true
	}
	return replaceSpans(line, r.spans), true
}

// redactUnparsed redacts a line that may be JSON but holds too many values
// to parse, from byte from on, without a tree: which strings the JSON
// rules redact depends on the tree, so every string value below the top
// level, the message's params, result or error, is replaced whole. The
// top level's strings (jsonrpc, method, a string id) are kept, unless
// their member's name looks secret, and member names too; both are
// searched for the text patterns, as JSON strings are. The text patterns
// alone would let through what only the JSON rules find (an MCP server's
// environment variables).
func redactUnparsed(line []byte, from int) []byte {
	var spans []span
	depth := 0
	secretMember := false // the top-level member whose value comes next
	for i := from; i < len(line); i++ {
		switch line[i] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case '"':
			end := i + 1 // after the closing quote, or the line's end
			for end < len(line) && line[end] != '"' {
				if line[end] == '\\' {
					end++
				}
				end++
			}
			end = min(end+1, len(line))
			next := end
			for next < len(line) && (line[next] == ' ' || line[next] == '\t' || line[next] == '\r' || line[next] == '\n') {
				next++
			}
			isName := next < len(line) && line[next] == ':'
			switch {
			case !isName && (depth > 1 || secretMember) && end-i > len(`""`):
				spans = append(spans, span{i, end, true})
			case end-i > len(`""`):
				inside := end - 1
				if line[inside] != '"' || inside == i {
					inside = end // a string the line cuts
				}
				spans = textSecrets(line, i+1, inside, spans)
			}
			if isName && depth == 1 {
				secretMember = secretName(string(line[i+1 : max(i+1, end-1)]))
			}
			i = end - 1
		}
	}
	if len(spans) == 0 {
		return line
	}
	return replaceSpans(line, spans)
}

// RedactCommand returns a copy of an agent command line (the recording
// header's "command") with the values of secret flags and anything that
// looks like a token or a URL credential replaced, by the rules Redact
// applies to an "args" array.
func RedactCommand(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if i > 0 && flagTakesSecret(args[i-1]) {
			out[i] = Redacted
			continue
		}
		b := []byte(a)
		if spans := textSecrets(b, 0, len(b), nil); len(spans) > 0 {
			b = replaceSpans(b, spans)
		}
		out[i] = string(b)
	}
	return out
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// span is a byte range of the line to replace: a whole JSON string
// (quoted: replaced by "\"[REDACTED]\"") or a part of one (replaced by
// "[REDACTED]").
type span struct {
	start, end int
	quoted     bool
}

// replaceSpans replaces spans in line. Spans that overlap lie in one JSON
// string (every span does), so they are merged into one replacement.
func replaceSpans(line []byte, spans []span) []byte {
	slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
	out := make([]byte, 0, len(line))
	at := 0
	for i := 0; i < len(spans); {
		s := spans[i]
		for i++; i < len(spans) && spans[i].start < s.end; i++ {
			// A span that overlaps a whole string (quoted) lies inside it,
			// so the first of overlapping spans says whether the
			// replacement needs quotes.
			s.end = max(s.end, spans[i].end)
		}
		out = append(out, line[at:s.start]...)
		if s.quoted {
			out = append(out, '"')
			out = append(out, Redacted...)
			out = append(out, '"')
		} else {
			out = append(out, Redacted...)
		}
		at = s.end
	}
	return append(out, line[at:]...)
}

// redactor collects the spans of a parsed JSON line.
type redactor struct {
	spans  []span
	offset int    // of the parsed text in the line (a BOM)
	line   []byte // the whole line
	// text is set when textSecrets' patterns may match in some string of
	// the line; most lines hold none, and are not searched string by
	// string.
	text bool
}

// all redacts every string in v.
func (r *redactor) all(v *jsonv.Value) {
	switch v.Kind {
	case jsonv.String:
		if v.End()-v.Start() > len(`""`) { // "" hides nothing
			r.spans = append(r.spans, span{r.offset + v.Start(), r.offset + v.End(), true})
		}
	case jsonv.Array:
		elems := v.Elems()
		for i := range elems {
			r.all(&elems[i])
		}
	case jsonv.Object:
		members := v.Members()
		for i := range members {
			r.all(&members[i].Value)
		}
	}
}

// value finds the secrets in v, the value of a member called key.
func (r *redactor) value(v *jsonv.Value, key string) {
	switch v.Kind {
	case jsonv.String:
		if r.text {
			// Inside the quotes only: the patterns cannot then reach
			// past the string, so the line stays valid JSON.
			r.spans = textSecrets(r.line, r.offset+v.Start()+1, r.offset+v.End()-1, r.spans)
		}
	case jsonv.Object:
		members := v.Members()
		if key == "env" || key == "headers" {
			r.all(v) // an object map of variables or headers
			return
		}
		// {"name":"OPENAI_API_KEY","value":…} anywhere. Only a name that
		// is an identifier: a select option {"name":"Save tokens",
		// "value":"low"} is a label and an id, no secret.
		if name, ok := v.Get("name"); ok && name.Kind == jsonv.String && identifier(name.Str()) && secretName(name.Str()) {
			for i := range members {
				if members[i].Key == "value" {
					r.all(&members[i].Value)
				}
			}
		}
		// The members of a JSON Schema's "properties" (an elicitation's
		// requestedSchema) are named after the values they describe: a
		// "password" there holds {"type":"string"}, which must stay.
		schemaNames := key == "properties"
		for i := range members {
			m := &members[i]
			if !schemaNames && secretName(m.Key) {
				r.all(&m.Value)
				continue
			}
			r.value(&m.Value, m.Key)
		}
	case jsonv.Array:
		elems := v.Elems()
		for i := range elems {
			e := &elems[i]
			switch {
			case (key == "env" || key == "headers") && e.Kind == jsonv.Object:
				// {"name":"GITHUB_TOKEN","value":"…"}: every value of
				// every entry is a secret, its name is not.
				members := e.Members()
				for j := range members {
					if members[j].Key != "name" {
						r.all(&members[j].Value)
					}
				}
			case key == "args" && i > 0 && e.Kind == jsonv.String &&
				elems[i-1].Kind == jsonv.String && flagTakesSecret(elems[i-1].Str()):
				r.all(e) // "--token", "X"
			default:
				r.value(e, "")
			}
		}
	}
}

// identifier reports whether s is a variable or header name: letters,
// digits, "_", "-" and "." only.
func identifier(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return s != ""
}

// flagTakesSecret reports whether arg is a command-line flag whose value
// is a credential: "--token", "-api-key", "--client_secret".
func flagTakesSecret(arg string) bool {
	name := strings.TrimLeft(arg, "-")
	// "--api-key=X" carries its own value (textSecrets redacts it).
	return len(name) < len(arg) && len(name) > 0 && !strings.Contains(name, "=") && secretName(name)
}

// secretName reports whether a member, flag, parameter or variable name
// says it holds a credential. It runs on every member name of every
// recorded line, so it does not allocate for names of usual length.
func secretName(k string) bool {
	var buf [64]byte
	norm := buf[:0]
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case c == '_' || c == '-' || c == '.':
			continue
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		norm = append(norm, c)
	}
	switch string(norm) { // no allocation: the conversion is only compared
	case "auth", "key", "pass", "pwd", "sig":
		return true
	}
	// "…tokens" are counts in ACP (usage.inputTokens) and numbers are
	// never redacted; a string under such a name is.
	return containsAny(norm, secretWords())
}

var secretWords = lazyLiterals("token", "apikey", "password", "passwd", "passphrase", "secret", "authorization", "credential", "privatekey",
	"cookie", "bearer", "signature", "accesskey", "sessionkey", "sshkey", "clientkey", "signingkey", "encryptionkey", "masterkey")

// The patterns of textSecrets. Their character classes exclude '"', '\\'
// and control characters, so a match inside a JSON string never leaves
// it nor cuts an escape: replacing it keeps a valid line valid. A token
// must start the text or follow a character that cannot be part of it
// (or a \n, \t … escape), hence the leading group, which is kept.
var (
	tokenFormats = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(^|\\[nrtbf]|[^A-Za-z0-9_\-])(` +
			`gh[pousr]_[A-Za-z0-9]{8,}|github_pat_[A-Za-z0-9_]{8,}|` +
			`sk-[A-Za-z0-9_\-]{8,}|xox[abposr]-[A-Za-z0-9\-]{8,}|` +
			`(?:AKIA|ASIA)[0-9A-Z]{16}|glpat-[A-Za-z0-9_\-]{8,}|AIza[0-9A-Za-z_\-]{30,}|` +
			`eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]*|` +
			`(?:[Bb]earer|BEARER|[Bb]asic|BASIC) +[A-Za-z0-9._~+/=\-]{8,}|` +
			`-----BEGIN [A-Z ]*PRIVATE KEY-----[^"]*?-----END [A-Z ]*PRIVATE KEY-----)`)
	})
	// scheme://user:PASSWORD@host, also with JSON-escaped slashes.
	urlPassword = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.\-]*:(?:\\?/){2}[^/\s"\\@:]*:([^/\s"\\@]+)@`)
	})
	// ?name=VALUE or &name=VALUE.
	queryValue = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[?&]([A-Za-z0-9_.\-]+)=([^&#\s"\\]+)`) })
	// --name=VALUE or --name VALUE inside a string.
	flagValue = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?:^|[\s"])(--[A-Za-z][A-Za-z0-9_.\-]*)(?:=| +)([^\s"\\]+)`)
	})
	// NAME=VALUE, as env(1) and shells take variables.
	assignValue = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:^|[\s"])([A-Za-z_][A-Za-z0-9_.\-]*)=([^\s"\\]+)`) })
	// "name": "VALUE (to the closing quote or the end of a cut line), with
	// the quotes of JSON escaped into a string (\"name\":\"VALUE\") too.
	namedValue = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(\\*)"([A-Za-z0-9_.\-]+)\\*"\s*:\s*\\*"([^"\\]*)`) })
)

// Go's regexp has no DFA: on every line it would cost far more than
// parsing. Each pattern runs only where literals its matches must hold
// occur, which a plain byte search finds at memory speed.
var (
	tokenLiterals = lazyLiterals("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "sk-", "xox", "AKIA", "ASIA", "glpat-", "AIza", "eyJ",
		"Bearer", "bearer", "BEARER", "Basic", "basic", "BASIC", "PRIVATE KEY")
	slashes = lazyLiterals("://", `:\/\/`)
	query   = lazyLiterals("?", "&")
	flags   = lazyLiterals(" --", `"--`)
)

// literalSet finds any of a few literals in a text in one pass, checking
// at each byte only the literals that start with it.
type literalSet [256][][]byte

// lazyLiterals returns the literal set of s, built on its first use: a
// set takes 6 KiB, which a process that redacts nothing need not pay for
// at start-up.
func lazyLiterals(s ...string) func() *literalSet {
	return sync.OnceValue(func() *literalSet { return literals(s...) })
}

func literals(s ...string) *literalSet {
	var set literalSet
	for _, l := range s {
		set[l[0]] = append(set[l[0]], []byte(l))
	}
	return &set
}

func containsAny(text []byte, set *literalSet) bool {
	for i, c := range text {
		for _, l := range set[c] {
			if bytes.HasPrefix(text[i:], l) {
				return true
			}
		}
	}
	return false
}

func mayHoldToken(text []byte) bool { return containsAny(text, tokenLiterals()) }

func mayHoldURLPassword(text []byte) bool {
	return bytes.IndexByte(text, '@') >= 0 && containsAny(text, slashes())
}

func mayHoldQueryValue(text []byte) bool {
	return bytes.IndexByte(text, '=') >= 0 && containsAny(text, query())
}

func mayHoldAssignment(text []byte) bool { return bytes.IndexByte(text, '=') >= 0 }

func mayHoldFlag(text []byte) bool {
	return bytes.HasPrefix(text, []byte("--")) || containsAny(text, flags())
}

// mayHoldEscapedJSON: namedValue matches in the text of a JSON string
// only where JSON is escaped into it.
func mayHoldEscapedJSON(text []byte) bool { return bytes.Contains(text, []byte(`\"`)) }

// mayHoldText reports whether textSecrets can find anything in a string
// of line, a JSON text: the literals a match in one string must hold are
// in the whole line too.
func mayHoldText(line []byte) bool {
	return mayHoldToken(line) || mayHoldURLPassword(line) || mayHoldAssignment(line) || mayHoldFlag(line) || mayHoldEscapedJSON(line)
}

// textSecrets adds the spans of the secrets its patterns find in
// line[start:end], the text of one JSON string or a whole line.
func textSecrets(line []byte, start, end int, spans []span) []span {
	text := line[start:end]
	add := func(from, to int) { spans = append(spans, span{start + from, start + to, false}) }
	find := func(re func() *regexp.Regexp, may func([]byte) bool) [][]int {
		if !may(text) {
			return nil
		}
		return re().FindAllSubmatchIndex(text, -1)
	}
	for _, m := range find(tokenFormats, mayHoldToken) {
		add(m[4], m[5])
	}
	for _, m := range find(urlPassword, mayHoldURLPassword) {
		add(m[2], m[3])
	}
	for _, m := range find(queryValue, mayHoldQueryValue) {
		if secretName(string(text[m[2]:m[3]])) {
			add(m[4], m[5])
		}
	}
	for _, m := range find(flagValue, mayHoldFlag) {
		if flagTakesSecret(string(text[m[2]:m[3]])) {
			add(m[4], m[5])
		}
	}
	for _, m := range find(assignValue, mayHoldAssignment) {
		if secretName(string(text[m[2]:m[3]])) {
			add(m[4], m[5])
		}
	}
	// In a line that is not JSON, "name":"value" needs no escapes.
	for _, m := range find(namedValue, func([]byte) bool { return true }) {
		if m[6] < m[7] && secretName(string(text[m[4]:m[5]])) {
			add(m[6], m[7])
		}
	}
	return spans
}

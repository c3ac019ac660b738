package tap

import (
	"sort"
	"strings"

	"github.com/acplint/acplint/internal/jsonv"
)

// Redacted replaces each secret value in a recording.
const Redacted = "[REDACTED]"

// Redact returns line with secret string values replaced by "[REDACTED]",
// leaving every other byte as it was, so the recording still lints the
// same. Secrets are the values of MCP server environment variables and
// HTTP headers ({"name","value"} entries under "env" or "headers"), and
// string members whose names say they hold credentials (token, apiKey,
// password, secret, authorization …). A line that is not JSON is returned
// unchanged: there is nothing structured to find in it.
func Redact(line []byte) []byte {
	v, err := jsonv.Parse(line)
	if err != nil {
		return line
	}
	var spans [][2]int
	collectSecrets(&v, "", &spans)
	if len(spans) == 0 {
		return line
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i][0] < spans[j][0] })
	out := make([]byte, 0, len(line))
	at := 0
	for _, s := range spans {
		if s[0] < at {
			continue // nested in a span already replaced
		}
		out = append(out, line[at:s[0]]...)
		out = append(out, '"')
		out = append(out, Redacted...)
		out = append(out, '"')
		at = s[1]
	}
	return append(out, line[at:]...)
}

func collectSecrets(v *jsonv.Value, key string, spans *[][2]int) {
	switch v.Kind {
	case jsonv.Object:
		members := v.Members()
		for i := range members {
			m := &members[i]
			if m.Value.Kind == jsonv.String && secretName(m.Key) {
				*spans = append(*spans, [2]int{m.Value.Start, m.Value.End})
				continue
			}
			collectSecrets(&m.Value, m.Key, spans)
		}
	case jsonv.Array:
		elems := v.Elems()
		for i := range elems {
			e := &elems[i]
			if (key == "env" || key == "headers") && e.Kind == jsonv.Object {
				if val, ok := e.Get("value"); ok && val.Kind == jsonv.String {
					if _, named := e.Get("name"); named {
						*spans = append(*spans, [2]int{val.Start, val.End})
					}
				}
			}
			collectSecrets(e, "", spans)
		}
	}
}

// secretName reports whether a member name says it holds a credential.
func secretName(k string) bool {
	k = strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(k))
	for _, s := range []string{"token", "apikey", "password", "passwd", "secret", "authorization", "credential", "privatekey", "cookie"} {
		if strings.Contains(k, s) {
			return true
		}
	}
	return false
}

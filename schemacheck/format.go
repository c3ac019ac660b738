package schemacheck

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// The validator worded its errors with golang.org/x/text's English
// printer; the few numbers that reach a message are formatted the same
// way here, without linking that package: digits grouped by thousands,
// and scientific notation (×10 with a superscript exponent of at least two
// digits) where Go's %v would use an exponent.

// printFloat formats f as the printer's %v did.
func printFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "∞"
	case math.IsInf(f, -1):
		return "-∞"
	case math.IsNaN(f):
		return "NaN"
	case f == 0:
		return "0"
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	mant, exp, sci := strings.Cut(s, "e")
	if !sci {
		return group(s)
	}
	neg := exp[0] == '-'
	exp = strings.TrimLeft(exp[1:], "0")
	for len(exp) < 2 {
		exp = "0" + exp
	}
	var b strings.Builder
	b.WriteString(mant)
	b.WriteString("\u202f×\u202f10")
	if neg {
		b.WriteString("⁻")
	}
	for _, c := range []byte(exp) {
		b.WriteString(superscript[c-'0'])
	}
	return b.String()
}

var superscript = [10]string{"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"}

// printInt formats i as the printer's %d did.
func printInt(i int) string { return group(strconv.Itoa(i)) }

// group puts thousands separators into the integer part of a decimal.
func group(s string) string {
	sign := ""
	if s[0] == '-' {
		sign, s = "-", s[1:]
	}
	intPart, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	b.WriteString(sign)
	for i := range len(intPart) {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(intPart[i])
	}
	if hasFrac {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String()
}

// quote is the validator's single-quoted string.
func quote(s string) string {
	s = fmt.Sprintf("%q", s)
	s = strings.ReplaceAll(s, `\"`, `"`)
	s = strings.ReplaceAll(s, `'`, `\'`)
	return "'" + s[1:len(s)-1] + "'"
}

// jsonText renders a decoded value canonically, as schemamodel renders
// constants (encoding/json: sorted keys, HTML characters escaped).
func jsonText(v any) string {
	if n, ok := v.(json.Number); ok {
		return n.String()
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// short renders a value for a message, cut to a readable length.
func short(v any) string {
	s := jsonText(v)
	if len(s) > 40 {
		s = s[:37] + "…"
	}
	return s
}

// sprint is fmt.Sprint of a decoded value, with maps in key order as fmt
// prints them.
func sprint(v any) string {
	var b strings.Builder
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			b.WriteString("map[")
			for i, k := range keys {
				if i > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(k)
				b.WriteByte(':')
				walk(x[k])
			}
			b.WriteByte(']')
		case []any:
			b.WriteByte('[')
			for i, e := range x {
				if i > 0 {
					b.WriteByte(' ')
				}
				walk(e)
			}
			b.WriteByte(']')
		default:
			fmt.Fprint(&b, x)
		}
	}
	walk(v)
	return b.String()
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number, float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "value"
}

func article(t string) string {
	switch t {
	case "null":
		return "null"
	case "object", "array", "integer":
		return "an " + t
	}
	return "a " + t
}

func wantTypes(ts []string) string {
	seen := map[string]bool{}
	var out []string
	for _, t := range ts {
		if !seen[t] {
			seen[t] = true
			out = append(out, article(t))
		}
	}
	return strings.Join(out, " or ")
}

package htmlreport

import "github.com/acplint/acplint/internal/jsonv"

// appendString appends s as a JSON string that is also inert inside an
// HTML <script> element: besides what JSON requires, '<', '>' and '&' are
// escaped (no "</script>" or "<!--" can end or change the element), and so
// are U+2028 and U+2029 (line terminators to older JavaScript parsers).
// Bytes that are not UTF-8 become U+FFFD, as encoding/json writes them.
// Every embedded string, message text and finding alike, goes through it.
func appendString[T string | []byte](b []byte, s T) []byte {
	return jsonv.AppendString(b, s, scriptSafe)
}

// appendStringBody is appendString without the quotes, for a string
// written in pieces (a run of text lines).
func appendStringBody[T string | []byte](b []byte, s T) []byte {
	return jsonv.AppendStringBody(b, s, scriptSafe)
}

// scriptSafe is not quite encoding/json's HTML-safe escaping: \b and \f
// are written as \u0008 and \u000c, as the page always has.
const scriptSafe = jsonv.EscapeHTML | jsonv.ReplaceInvalidUTF8 | jsonv.EscapeLineSeparators

package htmlreport

import (
	"bufio"
	"html/template"
	"strings"
	"testing"
)

// escapeOracle is where the page's head puts text it does not trust: an
// element's text, the title's and a quoted attribute value. html/template
// wrote the head before (it left the binary for start-up, issue 16); its
// escaping is the reference for escapeHTML.
var escapeOracle = template.Must(template.New("oracle").Parse(`<title>{{.}}</title><meta content="{{.}}"><h1>{{.}}</h1>`))

// TestEscapeHTMLAsHTMLTemplate: escapeHTML writes every string as
// html/template does in the places the head puts the file name, the tool
// and its version: every byte alone, markup, quotes, NUL, invalid UTF-8.
func TestEscapeHTMLAsHTMLTemplate(t *testing.T) {
	inputs := []string{
		"", "report.ndjson", `</title><script>alert("file")</script>.ndjson`, `" onload="x`, `' onerror='x`,
		"devel-0123456789ab+dirty", "a&amp;b", "\x00nul", "\xff\xfe invalid", "é€😀\u2028", "<!-- -->", "`backtick`",
	}
	for c := range 256 {
		inputs = append(inputs, string([]byte{byte(c)}), "x"+string([]byte{byte(c)})+"y")
	}
	for _, s := range inputs {
		var want strings.Builder
		if err := escapeOracle.Execute(&want, s); err != nil {
			t.Fatal(err)
		}
		var got strings.Builder
		w := bufio.NewWriter(&got)
		w.WriteString("<title>")
		escapeHTML(w, s)
		w.WriteString(`</title><meta content="`)
		escapeHTML(w, s)
		w.WriteString(`"><h1>`)
		escapeHTML(w, s)
		w.WriteString("</h1>")
		w.Flush()
		if got.String() != want.String() {
			t.Errorf("%q:\ngot  %s\nwant %s", s, got.String(), want.String())
		}
	}
}

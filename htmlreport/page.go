package htmlreport

import (
	"bufio"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"maps"
	"slices"
	"sync"

	"github.com/acplint/acplint/findings"
)

// The page's style and script, inlined: the report is one file that works
// offline, and loads nothing.
var (
	//go:embed assets/report.css
	css string
	//go:embed assets/report.js
	script string
)

// csp allows the page's own style and script (by their hashes) and nothing
// else: no other script, even one that escaped into the page, runs, and
// the page reaches no network. It is made when the first page is written,
// not when a command that writes none starts.
var csp = sync.OnceValue(func() string {
	return "default-src 'none'; style-src " + hashSource(css) + "; script-src " + hashSource(script) +
		"; img-src data:; base-uri 'none'; form-action 'none'"
})

func hashSource(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// writeHead writes the page up to the data blocks. The title (a file
// name), the tool and its version are escaped for the element text and
// the quoted attribute values they go in, as html/template escaped them
// before (issue 16: html/template's package init ran in every acplint
// process); css is trusted, compiled-in text.
func writeHead(w *bufio.Writer, title string, opts Options) error {
	w.WriteString(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="`)
	escapeHTML(w, csp())
	w.WriteString(`">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="`)
	escapeHTML(w, opts.Tool)
	w.WriteString(` `)
	escapeHTML(w, opts.Version)
	w.WriteString(`">
<title>`)
	escapeHTML(w, title)
	w.WriteString(` · acplint report</title>
<style>`)
	w.WriteString(css)
	w.WriteString(`</style>
</head>
<body>
<noscript><p class="noscript">This report draws its timeline with JavaScript, which is off. The transcript and its findings are in the page source, in the script elements of type application/json.</p></noscript>
<header id="top">
<div class="title"><h1>`)
	escapeHTML(w, title)
	w.WriteString(`</h1><span class="by">`)
	escapeHTML(w, opts.Tool)
	w.WriteString(` `)
	escapeHTML(w, opts.Version)
	if opts.Redact {
		w.WriteString(` · secrets redacted`)
	}
	w.WriteString(`</span></div>
<div id="summary"></div>
<div id="controls">
<span class="group" id="sev-filter"><label class="sev-error"><input type="checkbox" id="sev-error" checked> errors</label> <label class="sev-warning"><input type="checkbox" id="sev-warning" checked> warnings</label> <label class="sev-info"><input type="checkbox" id="sev-info" checked> info</label></span>
<label class="group">rule <select id="rule"><option value="">all rules</option></select></label>
<label class="group" id="file-filter">file <select id="file"><option value="">all files</option></select></label>
<label class="group">session <select id="session"><option value="">all sessions</option></select></label>
<label class="group"><input type="checkbox" id="only-findings"> only messages with findings</label>
<input type="search" id="search" placeholder="search messages (/)" autocomplete="off">
<span class="group"><button type="button" id="prev" title="previous finding (p)">◀ finding</button><button type="button" id="next" title="next finding (n)">finding ▶</button></span>
<span class="group"><button type="button" id="collapse">collapse all</button><button type="button" id="expand">expand all</button></span>
<span id="status" role="status"></span>
</div>
</header>
<main>
<section id="timeline">
<div class="row head"><span class="ln">line</span><span class="t">time</span><span class="c">client</span><span class="arrow"></span><span class="a">agent</span><span class="fx">findings</span></div>
<div id="scroller" tabindex="0"><div id="spacer"></div></div>
</section>
<aside id="detail"><p class="hint">Select a message to see it in full, with its findings. Keys: n and p go to the next and previous finding, / searches.</p></aside>
</main>
`)
	return writeErr(w)
}

// writeErr is the error of w's writes so far: bufio.Writer keeps the
// first, and returns it from every later write.
func writeErr(w *bufio.Writer) error {
	_, err := w.WriteString("")
	return err
}

// escapeHTML writes s escaped for HTML element text and for a quoted
// attribute value: the characters html/template's HTML escaper replaces,
// replaced as it does, so that every other byte (invalid UTF-8 included)
// is written as it is.
func escapeHTML(w *bufio.Writer, s string) {
	start := 0
	for i := 0; i < len(s); i++ {
		var repl string
		switch s[i] {
		case 0:
			repl = "\uFFFD"
		case '"':
			repl = "&#34;"
		case '&':
			repl = "&amp;"
		case '\'':
			repl = "&#39;"
		case '+':
			repl = "&#43;"
		case '<':
			repl = "&lt;"
		case '>':
			repl = "&gt;"
		default:
			continue
		}
		w.WriteString(s[start:i])
		w.WriteString(repl)
		start = i + 1
	}
	w.WriteString(s[start:])
}

// writeTail writes the metadata block (the producer, and the catalog entry
// of each rule reported, for the page's explanations) and the script.
func writeTail(w *bufio.Writer, opts Options, rules map[string]bool) error {
	b := []byte(`<script type="application/json" id="acp-meta">{"tool":`)
	b = appendString(b, opts.Tool)
	b = append(b, `,"version":`...)
	b = appendString(b, opts.Version)
	b = append(b, `,"redacted":`...)
	if opts.Redact {
		b = append(b, "true"...)
	} else {
		b = append(b, "false"...)
	}
	b = append(b, `,"rules":{`...)
	first := true
	for _, id := range slices.Sorted(maps.Keys(rules)) {
		r, ok := findings.ByID(id)
		if !ok {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendString(b, id)
		b = append(b, ':', '[')
		b = appendString(b, r.Title)
		b = append(b, ',')
		b = appendString(b, r.Doc)
		b = append(b, ',')
		b = appendString(b, r.Spec)
		b = append(b, ']')
	}
	b = append(b, "}}</script>\n"...)
	if _, err := w.Write(b); err != nil {
		return err
	}
	w.WriteString("<script>")
	w.WriteString(script)
	w.WriteString("</script>\n</body>\n</html>\n")
	return writeErr(w)
}

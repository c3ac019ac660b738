package htmlreport

// The page in a real browser: headless Chromium, driven over the DevTools
// protocol with github.com/chromedp/chromedp (a test-only dependency: the
// report's script is the only place that joins findings to rows, filters
// them and draws them, and only a browser runs it).
//
// scripts/install-test-deps installs Chromium from the Debian packages. Without
// a browser these tests skip, saying so loudly; ACPLINT_REQUIRE_BROWSER=1
// makes that a failure (CI).

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/internal/golden"
	"github.com/acplint/acplint/internal/transcriptgen"
	"github.com/acplint/acplint/lint"
	"github.com/acplint/acplint/transcript"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

var screenshotOut = flag.String("screenshot", "", "write the browser test's screenshot of testdata/screenshot.jsonl's report to this PNG `file` (docs/report.png is the README's)")

const requireBrowserEnv = "ACPLINT_REQUIRE_BROWSER"

// browserPath finds Chromium or Chrome.
func browserPath() string {
	if p := os.Getenv("ACPLINT_BROWSER"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// probe runs in the page before its own script: it records every dialog a
// script tries to open and every Content-Security-Policy violation.
const probe = `window.__probe = {alerts: [], violations: []};
for (const name of ['alert', 'confirm', 'prompt', 'print']) {
  window[name] = function (m) { window.__probe.alerts.push(name + ': ' + String(m)); };
}
document.addEventListener('securitypolicyviolation', (e) => {
  window.__probe.violations.push(e.violatedDirective + ' ' + e.blockedURI + ' ' + (e.sample || ''));
});`

// tab is one browser tab for a test.
type tab struct {
	t   *testing.T
	ctx context.Context
	mu  sync.Mutex
	// dialogs are the JavaScript dialogs the browser opened (the probe
	// replaces alert and friends, so any is a failure).
	dialogs []string
}

// openTab starts a headless browser, or skips the test loudly.
func openTab(t *testing.T, width, height int) *tab {
	t.Helper()
	path := browserPath()
	if path == "" {
		msg := "no Chromium or Chrome on PATH (scripts/install-test-deps installs the Debian chromium package; ACPLINT_BROWSER names another)"
		if os.Getenv(requireBrowserEnv) == "1" {
			t.Fatalf("%s; %s=1 makes this a failure", msg, requireBrowserEnv)
		}
		fmt.Fprintf(os.Stderr, "\n%s\n# SKIPPED LOUDLY: %s: %s\n%s\n\n", strings.Repeat("#", 80), t.Name(), msg, strings.Repeat("#", 80))
		t.Skipf("SKIPPED LOUDLY: %s", msg)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox, // root in a container has no user namespace for the sandbox
		chromedp.WindowSize(width, height),
		chromedp.Flag("hide-scrollbars", true),
	)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(cancel)
	tb := &tab{t: t, ctx: ctx}
	if err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: probe})
		return err
	})); err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	if err := chromedp.Listen(ctx, func(ev any) {
		if d, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			tb.mu.Lock()
			tb.dialogs = append(tb.dialogs, d.Message)
			tb.mu.Unlock()
			go chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		}
	}); err != nil {
		t.Fatal(err)
	}
	return tb
}

// load opens the page in file and waits until its script has drawn it; it
// returns how long that took, from the start of navigation.
func (tb *tab) load(file string) time.Duration {
	tb.t.Helper()
	start := time.Now()
	ctx, cancel := context.WithTimeout(tb.ctx, 3*time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+file)); err != nil {
		tb.t.Fatalf("loading %s: %v", file, err)
	}
	tb.eval(`new Promise((resolve, reject) => {
  const t0 = Date.now();
  (function poll() {
    if (document.body && document.body.dataset.ready === 'true') return resolve(true);
    if (Date.now() - t0 > 170000) return reject(new Error('the page never got ready'));
    setTimeout(poll, 10);
  })();
})`, nil)
	return time.Since(start)
}

// eval runs js in the page (awaiting a promise) and decodes its value into
// out, unless out is nil.
func (tb *tab) eval(js string, out any) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 3*time.Minute)
	defer cancel()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](js, chromedp.EvalAwaitPromise))
	if err != nil {
		tb.t.Fatalf("in the page: %v\n%s", err, js)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			tb.t.Fatalf("decoding %s: %v", raw, err)
		}
	}
}

// checkInert fails the test if a script tried to open a dialog or broke
// the page's Content-Security-Policy.
func (tb *tab) checkInert() {
	tb.t.Helper()
	var p struct{ Alerts, Violations []string }
	tb.eval(`window.__probe`, &p)
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if len(p.Alerts) > 0 || len(tb.dialogs) > 0 {
		tb.t.Errorf("a script ran: dialogs %q %q", p.Alerts, tb.dialogs)
	}
	if len(p.Violations) > 0 {
		tb.t.Errorf("Content-Security-Policy violations: %q", p.Violations)
	}
}

// goTo sets the page's location hash and waits for the page to handle it.
const goTo = `async function goTo(hash) {
  if (location.hash === hash) location.hash = '#';
  await new Promise((resolve) => { window.addEventListener('hashchange', resolve, {once: true}); location.hash = hash; });
  await new Promise((resolve) => setTimeout(resolve, 0));
}
`

// shownRow is what the page shows for one selected row.
type shownRow struct {
	Lines    []int    // the lines of the selected row (several for a fold)
	Badges   []string // the rule IDs on the row
	More     bool     // the row shows "+N" for further findings
	Findings []struct{ Rule, Msg string }
}

const readSelected = `(() => {
  const row = document.querySelector('#spacer .row.sel');
  if (!row) return null;
  const lines = (row.dataset.lines || row.dataset.line || '').split(' ').filter(Boolean).map(Number);
  return {
    Lines: lines,
    Badges: [...row.querySelectorAll('.badge')].map((b) => b.dataset.rule),
    More: !!row.querySelector('.more'),
    Findings: [...document.querySelectorAll('#detail .finding')].map((f) => ({Rule: f.dataset.rule, Msg: f.querySelector('.msg').textContent})),
  };
})()`

// corpusPage writes one page of the given corpus cases, one file each, and
// returns its path and the findings of each file (by file index).
func corpusPage(t *testing.T, names []string, opts Options) (string, [][]findings.ValidationFinding, []*golden.Case) {
	t.Helper()
	var buf bytes.Buffer
	w := New(&buf, opts)
	perFile := make([][]findings.ValidationFinding, len(names))
	var cases []*golden.Case
	for i, name := range names {
		c := corpusCase(t, name)
		cases = append(cases, c)
		lo := lintOptions(c)
		lo.OnFinding = func(f findings.ValidationFinding) { perFile[i] = append(perFile[i], f) }
		if _, err := w.Lint(bytes.NewReader(c.Transcript), lo); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(file, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return file, perFile, cases
}

// allCases lists every case of the golden corpus.
func allCases(t *testing.T) []string {
	t.Helper()
	root := filepath.Join("..", "conformance", "testdata")
	var names []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".txtar") {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		names = append(names, strings.TrimSuffix(filepath.ToSlash(rel), ".txtar"))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// TestBrowserShowsEveryFinding loads one page of the whole golden corpus
// (one file per case) and checks, through each finding's permalink, that
// the row of its line is selected and carries it, as a badge on the row
// and in full in the detail pane; and that the summary counts them all.
func TestBrowserShowsEveryFinding(t *testing.T) {
	tb := openTab(t, 1400, 900)
	names := allCases(t)
	file, perFile, _ := corpusPage(t, names, Options{Version: "test"})
	took := tb.load(file)
	t.Logf("%d transcripts in one page, loaded in %v", len(names), took)
	total := 0
	for i, fs := range perFile {
		byLine := map[int][]findings.ValidationFinding{}
		for _, f := range fs {
			byLine[f.Location.Line] = append(byLine[f.Location.Line], f)
			total++
		}
		for _, line := range slices.Sorted(mapsKeys(byLine)) {
			hash := fmt.Sprintf("#F%d-L%d", i+1, line)
			if i == 0 {
				hash = fmt.Sprintf("#L%d", line)
			}
			if line == 0 {
				hash = fmt.Sprintf("#F%d-end", i+1)
			}
			var got *shownRow
			tb.eval(goTo+`goTo(`+jsString(hash)+`).then(() => `+readSelected+`)`, &got)
			if got == nil {
				t.Errorf("%s %s: no row selected", names[i], hash)
				continue
			}
			if line > 0 && !slices.Contains(got.Lines, line) {
				t.Errorf("%s %s: the selected row is of lines %v", names[i], hash, got.Lines)
			}
			for _, f := range byLine[line] {
				if !slices.Contains(got.Badges, f.RuleID) && !got.More {
					t.Errorf("%s %s: the row has badges %v, not %s", names[i], hash, got.Badges, f.RuleID)
				}
				if !slices.ContainsFunc(got.Findings, func(s struct{ Rule, Msg string }) bool {
					return s.Rule == f.RuleID && s.Msg == f.Message
				}) {
					t.Errorf("%s %s: the detail pane lacks %s %q; it shows %v", names[i], hash, f.RuleID, f.Message, got.Findings)
				}
			}
		}
	}
	var counted int
	tb.eval(`[...document.querySelectorAll('#summary .badge[data-count]')].reduce((n, b) => n + Number(b.dataset.count), 0)`, &counted)
	if counted != total || total == 0 {
		t.Errorf("the summary counts %d findings, lint gave %d", counted, total)
	}
	tb.checkInert()
}

func mapsKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// lintOptions are the options the golden corpus lints a case with.
func lintOptions(c *golden.Case) lint.Options {
	lo := lint.Options{File: c.Name}
	switch c.TranscriptName {
	case "transcript.jsonl":
		lo.Format = transcript.FormatJSONL
	case "transcript.zed.json":
		lo.Format = transcript.FormatZed
	case "transcript.acplint.jsonl":
		lo.Format = transcript.FormatTranscript
	default:
		lo.Format = transcript.FormatNDJSON
	}
	lo.CleanEnd = slices.Contains(c.Flags, "--clean-end")
	return lo
}

// status reads how many messages the page says it shows.
func (tb *tab) shown() int {
	tb.t.Helper()
	var n string
	tb.eval(`document.getElementById('status').dataset.shown`, &n)
	var v int
	fmt.Sscan(n, &v)
	return v
}

// setControl changes a filter control as a user would and waits for the
// page to redraw.
func (tb *tab) setControl(id string, value any) {
	tb.t.Helper()
	v, _ := json.Marshal(value)
	tb.eval(`(async () => {
  const e = document.getElementById(`+jsString(id)+`);
  const v = `+string(v)+`;
  if (e.type === 'checkbox') e.checked = v; else e.value = v;
  e.dispatchEvent(new Event(e.type === 'search' ? 'input' : 'change'));
  await new Promise((r) => setTimeout(r, e.type === 'search' ? 400 : 0));
})()`, nil)
}

// renderedRows are the message rows the page has drawn.
type renderedRow struct {
	Line    int
	Session string
	Badges  []string
	Sevs    []string
}

func (tb *tab) rendered() []renderedRow {
	tb.t.Helper()
	var rows []renderedRow
	tb.eval(`[...document.querySelectorAll('#spacer .row[data-r]')].map((e) => ({
  Line: Number(e.dataset.line), Session: e.dataset.session || '',
  Badges: [...e.querySelectorAll('.badge')].map((b) => b.dataset.rule),
  Sevs: [...e.querySelectorAll('.badge')].map((b) => b.className.replace(/.*sev-/, '')),
}))`, &rows)
	return rows
}

// TestBrowserFilters: the rule, severity, session and search filters and
// next/previous finding do what they say, on a page of several cases.
func TestBrowserFilters(t *testing.T) {
	tb := openTab(t, 1400, 2000)
	names := []string{"rpc/duplicate-pending-id", "sdk/cancel-stream", "cxl/cancel-request-id-by-value", "wire/batch-request", "turn/interleaved-message-ids", "lint/recording-with-gap"}
	file, perFile, cases := corpusPage(t, names, Options{})
	tb.load(file)

	// What each filter should leave, worked out from lint's own output:
	// rows are messages (and an end row per file); a finding sits on the
	// row of its line, or on the file's end row for line 0.
	type key struct{ file, line int }
	rowsOf := map[key]int{} // rows (messages) per line
	var allRows, searchHits int
	const query = "SESSION/cancel" // the search ignores case
	for i, c := range cases {
		lo := lintOptions(c)
		lo.OnEntry = func(e transcript.Entry, msgs []*domain.Message) {
			n := max(1, len(msgs))
			rowsOf[key{i, e.Line.Num}] = n
			allRows += n
			text := strings.ToLower(string(e.Line.Bytes))
			for _, l := range e.Extra {
				text += "\n" + strings.ToLower(string(l.Bytes))
			}
			for j := 0; j < n; j++ {
				method := ""
				if j < len(msgs) {
					method = string(msgs[j].Method)
				}
				if strings.Contains(text, strings.ToLower(query)) || strings.Contains(strings.ToLower(method), strings.ToLower(query)) {
					searchHits++
				}
			}
		}
		if _, err := lint.Transcript(bytes.NewReader(c.Transcript), lo); err != nil {
			t.Fatal(err)
		}
	}
	if got := tb.shown(); got != allRows {
		t.Errorf("unfiltered, the page shows %d messages; the transcripts have %d", got, allRows)
	}
	rowsWith := func(keep func(findings.ValidationFinding) bool) int {
		lines := map[key]bool{}
		for i, fs := range perFile {
			for _, f := range fs {
				if keep(f) {
					lines[key{i, f.Location.Line}] = true
				}
			}
		}
		return len(lines)
	}

	t.Run("rule", func(t *testing.T) {
		const rule = "ACP-RPC-004"
		tb.setControl("rule", rule)
		defer tb.setControl("rule", "")
		want := rowsWith(func(f findings.ValidationFinding) bool { return f.RuleID == rule })
		if got := tb.shown(); got != want || want == 0 {
			t.Errorf("rule %s: %d rows shown, want %d", rule, got, want)
		}
		for _, r := range tb.rendered() {
			if !slices.Contains(r.Badges, rule) || slices.ContainsFunc(r.Badges, func(b string) bool { return b != rule }) {
				t.Errorf("rule %s: line %d shows badges %v", rule, r.Line, r.Badges)
			}
		}
	})
	t.Run("severity", func(t *testing.T) {
		tb.setControl("only-findings", true)
		tb.setControl("sev-error", false)
		defer func() { tb.setControl("sev-error", true); tb.setControl("only-findings", false) }()
		want := rowsWith(func(f findings.ValidationFinding) bool { return f.Severity != findings.SeverityError })
		if got := tb.shown(); got != want || want == 0 {
			t.Errorf("without errors, only findings: %d rows shown, want %d", got, want)
		}
		for _, r := range tb.rendered() {
			if len(r.Sevs) == 0 || slices.Contains(r.Sevs, "error") {
				t.Errorf("without errors: line %d shows severities %v", r.Line, r.Sevs)
			}
		}
	})
	t.Run("session", func(t *testing.T) {
		var option struct{ Value, Text string }
		tb.eval(`(() => { const o = document.querySelector('#session option:nth-child(2)'); return {Value: o.value, Text: o.textContent}; })()`, &option)
		tb.setControl("session", option.Value)
		defer tb.setControl("session", "")
		rows := tb.rendered()
		sess := option.Value[strings.Index(option.Value, "|")+1:]
		if len(rows) == 0 {
			t.Fatalf("session %s: no row shown", sess)
		}
		for _, r := range rows {
			if r.Session != sess {
				t.Errorf("session %s: line %d is of session %q", sess, r.Line, r.Session)
			}
		}
	})
	t.Run("search", func(t *testing.T) {
		tb.setControl("search", query)
		defer tb.setControl("search", "")
		if got := tb.shown(); got != searchHits || searchHits == 0 {
			t.Errorf("search %q: %d rows shown, want %d", query, got, searchHits)
		}
	})
	t.Run("next finding", func(t *testing.T) {
		total := 0
		for _, fs := range perFile {
			total += len(fs)
		}
		seen := map[string]bool{}
		for range total {
			var current string
			tb.eval(`document.getElementById('next').click(); document.querySelector('#detail .finding.current')?.dataset.finding ?? ''`, &current)
			if current == "" {
				t.Fatal("next finding selected no finding")
			}
			seen[current] = true
		}
		if len(seen) != total {
			t.Errorf("next finding visited %d findings in %d steps, want all %d", len(seen), total, total)
		}
	})
	t.Run("collapse", func(t *testing.T) {
		tb.eval(`document.getElementById('collapse').click()`, nil)
		defer tb.eval(`document.getElementById('expand').click()`, nil)
		for _, r := range tb.rendered() {
			if r.Session != "" {
				t.Errorf("collapsed, line %d of session %s is still shown", r.Line, r.Session)
			}
		}
	})
	tb.checkInert()
}

// TestBrowserUntrustedTextIsInert loads the page of a transcript full of
// markup and script (hostileTranscript), with its Content-Security-Policy
// and without it (the script's own handling must hold alone), opens every
// row and checks that no script ran, no element but the page's own
// exists, and the payloads are on the page as text.
func TestBrowserUntrustedTextIsInert(t *testing.T) {
	tb := openTab(t, 1400, 4000)
	var buf bytes.Buffer
	w := New(&buf, Options{})
	name := `<img src=x onerror=alert("file")>.ndjson`
	if _, err := w.Lint(strings.NewReader(hostileTranscript()), lint.Options{File: name, Format: transcript.FormatNDJSON}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	withCSP := buf.String()
	withoutCSP := strings.Replace(withCSP, `<meta http-equiv="Content-Security-Policy"`, `<meta name="no-csp"`, 1)
	if withoutCSP == withCSP {
		t.Fatal("the page has no Content-Security-Policy to take out")
	}
	for variant, html := range map[string]string{"with CSP": withCSP, "without CSP": withoutCSP} {
		t.Run(variant, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "hostile.html")
			if err := os.WriteFile(file, []byte(html), 0o600); err != nil {
				t.Fatal(err)
			}
			tb.load(file)
			var texts []string
			tb.eval(`(async () => {
  const texts = [document.title, document.querySelector('h1').textContent];
  const rows = () => [...document.querySelectorAll('#spacer .row[data-r]')];
  for (let i = 0; i < rows().length; i++) {
    rows()[i].click();
    await new Promise((r) => setTimeout(r, 0));
    texts.push(document.getElementById('detail').textContent);
    texts.push(rows()[i].textContent);
  }
  return texts;
})()`, &texts)
			all := strings.Join(texts, "\n")
			for _, p := range append(payloads, name) {
				if !strings.Contains(all, p) {
					t.Errorf("payload %q is not on the page as text", p)
				}
			}
			var dom struct {
				Scripts, Foreign, Handlers int
				Links                      []string
			}
			tb.eval(`({
  Scripts: document.querySelectorAll('script').length,
  Foreign: document.querySelectorAll('img, svg, iframe, object, embed, form, base, link, meta[http-equiv=refresh]').length,
  Handlers: [...document.querySelectorAll('*')].filter((e) => [...e.attributes].some((a) => a.name.startsWith('on'))).length,
  Links: [...document.querySelectorAll('a[href]')].map((a) => a.getAttribute('href')).filter((h) => !/^(#|https:\/\/agentclientprotocol\.com\/)/.test(h)),
})`, &dom)
			// The data blocks remove themselves once read: the metadata
			// and the script are the scripts left.
			if dom.Scripts != 2 || dom.Foreign != 0 || dom.Handlers != 0 || len(dom.Links) != 0 {
				t.Errorf("the page holds elements it did not make: %+v", dom)
			}
			tb.checkInert()
		})
	}
}

// TestBrowserScreenshot draws the report of testdata/screenshot.jsonl (an
// SDK recording with a cancel sent as a request and a mistyped result),
// checks that the mistyped member is marked in its message, and takes a
// screenshot at the cancel; -screenshot FILE keeps it (docs/report.png, in
// the README).
func TestBrowserScreenshot(t *testing.T) {
	tb := openTab(t, 1440, 800)
	input, err := os.ReadFile(filepath.Join("testdata", "screenshot.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := New(&buf, Options{Version: "devel"})
	if _, err := w.Lint(bytes.NewReader(input), lint.Options{File: "recording.jsonl", CleanEnd: true}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(file, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	tb.load(file)
	var marked []string
	tb.eval(goTo+`goTo('#L37').then(() => [...document.querySelectorAll('#detail .hl')].map((e) => e.dataset.pointer))`, &marked)
	if !slices.Equal(marked, []string{"/result/truncated"}) {
		t.Errorf("line 37 marks %v in its message, want the finding's pointer /result/truncated", marked)
	}
	// The screenshot: the cancel sent as a request, near the top of the
	// timeline with its session, turns and the pause before turn 2.
	var selected []int
	tb.eval(goTo+`document.getElementById('scroller').scrollTop = 0; goTo('#L8').then(() => [...document.querySelectorAll('#spacer .row.sel')].map((e) => Number(e.dataset.line)))`, &selected)
	if !slices.Equal(selected, []int{8}) {
		t.Errorf("#L8 selects the rows of lines %v", selected)
	}
	var shot []byte
	ctx, cancel := context.WithTimeout(tb.ctx, time.Minute)
	defer cancel()
	shot, err = chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(shot, []byte("\x89PNG")) {
		t.Fatal("the screenshot is not a PNG")
	}
	if *screenshotOut != "" {
		small, err := paletted(shot)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(*screenshotOut, small, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s (%d bytes; %d as the browser took it)", *screenshotOut, len(small), len(shot))
	}
	tb.checkInert()
}

// largeTranscript generates about messages lines of realistic traffic
// (internal/transcriptgen) with an orphan response every 1000 lines, so
// that findings are spread over the page.
func largeTranscript(t testing.TB, messages int) []byte {
	t.Helper()
	var gen bytes.Buffer
	// transcriptgen's lines average about 435 bytes.
	if err := transcriptgen.Write(&gen, transcriptgen.Options{Seed: 1, Bytes: int64(messages) * 435}); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for i, line := range bytes.SplitAfter(gen.Bytes(), []byte("\n")) {
		if i > 0 && i%1000 == 0 {
			fmt.Fprintf(&out, `{"jsonrpc":"2.0","id":"orphan-%d","result":{}}`+"\n", i)
		}
		out.Write(line)
	}
	return out.Bytes()
}

// TestBrowserLoad100k measures the page of a 100,000-message transcript
// in the browser: the load, and a scroll, a filter and a search after it.
// The rows are virtualised, so only those in view are in the document.
func TestBrowserLoad100k(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and loads a page of 100,000 messages")
	}
	tb := openTab(t, 1400, 900)
	input := largeTranscript(t, 100_000)
	var buf bytes.Buffer
	w := New(&buf, Options{})
	res, err := w.Lint(bytes.NewReader(input), lint.Options{File: "large.ndjson"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "large.html")
	if err := os.WriteFile(file, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	took := tb.load(file)
	var script string
	tb.eval(`document.body.dataset.loadMs`, &script)
	timed := func(js string) time.Duration {
		start := time.Now()
		tb.eval(js, nil)
		return time.Since(start)
	}
	scroll := timed(`(async () => {
  const s = document.getElementById('scroller');
  s.scrollTop = s.scrollHeight / 2;
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
})()`)
	var inDOM int
	tb.eval(`document.querySelectorAll('#spacer .row').length`, &inDOM)
	only := timed(`(() => { const e = document.getElementById('only-findings'); e.checked = true; e.dispatchEvent(new Event('change')); })()`)
	withFindings := tb.shown()
	tb.setControl("only-findings", false)
	search := timed(`(async () => {
  const e = document.getElementById('search');
  e.value = 'retryWithBackoff';
  e.dispatchEvent(new Event('input'));
  await new Promise((r) => setTimeout(r, 250));
})()`) - 200*time.Millisecond // the search waits 200 ms for typing to pause
	t.Logf("%d messages, %.1f MB transcript, %.1f MB page: loaded in %v (the page's script: %s ms); scroll to the middle %v; only findings %v (%d rows); search %v (%d rows); %d rows in the document",
		res.Messages, float64(len(input))/1e6, float64(buf.Len())/1e6, took.Round(time.Millisecond), script, scroll.Round(time.Millisecond),
		only.Round(time.Millisecond), withFindings, search.Round(time.Millisecond), tb.shown(), inDOM)
	if res.Messages < 100_000 {
		t.Errorf("%d messages, want at least 100,000", res.Messages)
	}
	if inDOM > 200 {
		t.Errorf("%d rows in the document: the rows are not virtualised", inDOM)
	}
	// Bounds that catch a page that freezes, not a slow machine.
	for what, d := range map[string]time.Duration{"load": took, "scroll": scroll, "filter": only, "search": search} {
		if d > 60*time.Second {
			t.Errorf("%s took %v", what, d)
		}
	}
	tb.checkInert()
}

// paletted re-encodes a screenshot with a palette of its 256 most common
// colours (a page is mostly flat colour; the rest map to the nearest), so
// the README's image stays small.
func paletted(shot []byte) ([]byte, error) {
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		return nil, err
	}
	b := img.Bounds()
	counts := map[color.RGBA]int{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			counts[color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)]++
		}
	}
	colors := slices.SortedFunc(mapsKeys(counts), func(a, b color.RGBA) int {
		if d := counts[b] - counts[a]; d != 0 {
			return d
		}
		return int(a.R) - int(b.R) + 256*(int(a.G)-int(b.G)) + 65536*(int(a.B)-int(b.B))
	})
	pal := make(color.Palette, 0, 256)
	for _, c := range colors[:min(256, len(colors))] {
		pal = append(pal, c)
	}
	out := image.NewPaletted(b, pal)
	nearest := map[color.RGBA]uint8{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			i, ok := nearest[c]
			if !ok {
				i = uint8(pal.Index(c))
				nearest[c] = i
			}
			out.SetColorIndex(x, y, i)
		}
	}
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(&buf, out); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

package main

import (
	"bufio"
	"bytes"
	"maps"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Package initialisation runs in every acplint process before any command
// does anything, so it must cost next to nothing (issue 16): tables,
// regexps and templates are made on first use (sync.OnceValue), not in
// init.
const (
	// initAllocs and initBytes bound what the init of one acplint package
	// may allocate: a few small maps and sync.Pools, not a compiled
	// regexp or a table built by walking types.
	initAllocs = 48
	initBytes  = 4 << 10
	// outsideInitBytes bounds the init of any other package linked in;
	// the largest today are yaml's and html/template's (20–30 KB), the MCP
	// SDK's schema package and encoding/gob (30–80 KB) before the server
	// left the binary. rapid's and the JSON-Schema validator's were over
	// 1 MB.
	outsideInitBytes = 128 << 10
)

// initExceptions are the acplint packages allowed more, with the reason.
var initExceptions = map[string]struct {
	allocs, bytes int
	why           string
}{
	"github.com/acplint/acplint/domain": {96, 8 << 10, "the method and union tables, which every lint reads (70 allocs, 5.5 KB)"},
}

// mustNotInit are packages whose init is heavy and that acplint must not
// link: upstream rapid builds its Unicode tables in init (the copy in
// internal/third_party/rapid does not), the JSON-Schema validator compiles
// its meta-schemas.
var mustNotInit = []string{"pgregory.net/rapid", "github.com/santhosh-tekuri/jsonschema/v6"}

// pendingRemoval are packages of mustNotInit still linked while the work
// that removes them is under way; an entry whose package no longer inits
// fails the test, so that the exemption goes when the package does.
var pendingRemoval = map[string]string{}

// mustNotLink are packages acplint must not link at all, with the reason:
// every process ran their package inits, for a command or a debugging aid
// that does not need them there (issue 16).
var mustNotLink = map[string]string{
	"net":          "the MCP SDK's; the MCP server is acplint-mcp, a binary of its own",
	"net/http":     "the MCP SDK's; the MCP server is acplint-mcp",
	"crypto/tls":   "the MCP SDK's; the MCP server is acplint-mcp",
	"crypto/x509":  "the MCP SDK's; the MCP server is acplint-mcp",
	"encoding/gob": "the MCP SDK's; the MCP server is acplint-mcp",
	"github.com/modelcontextprotocol/go-sdk/mcp": "the MCP server is acplint-mcp",
	"github.com/google/jsonschema-go/jsonschema": "the MCP tools' schemas; the MCP server is acplint-mcp",
	"image/png":      "rapid's -rapid.debugvis page, built only with -tags rapidvis",
	"compress/flate": "rapid's -rapid.debugvis page (through image/png), built only with -tags rapidvis",
	"html/template":  "the HTML report writes its head with escapeHTML",
}

// TestLinksNothingHeavy lists what the command links (go list -deps) and
// looks for the packages of mustNotLink.
func TestLinksNothingHeavy(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "github.com/acplint/acplint/lint") {
		t.Fatalf("go list -deps does not list lint; its output changed:\n%s", out)
	}
	for _, pkg := range slices.Sorted(maps.Keys(mustNotLink)) {
		if slices.Contains(deps, pkg) {
			t.Errorf("acplint links %s (%s); see go list -deps ./cmd/acplint", pkg, mustNotLink[pkg])
		}
	}
}

// initLine is one line of GODEBUG=inittrace=1 output.
var initLine = regexp.MustCompile(`^init (\S+) @\S+ ms, \S+ ms clock, (\d+) bytes, (\d+) allocs$`)

type initCost struct{ bytes, allocs int }

// TestInitIsCheap runs the built command with GODEBUG=inittrace=1 and
// checks what the init of each package it links allocates.
func TestInitIsCheap(t *testing.T) {
	costs := initCosts(t, buildAcplint(t))
	if len(costs) < 50 {
		t.Fatalf("read %d init lines from GODEBUG=inittrace=1; the format may have changed", len(costs))
	}
	for _, pkg := range slices.Sorted(maps.Keys(costs)) {
		c := costs[pkg]
		switch {
		case pkg == "main" || strings.HasPrefix(pkg, "github.com/acplint/acplint/"):
			maxAllocs, maxBytes := initAllocs, initBytes
			if ex, ok := initExceptions[pkg]; ok {
				maxAllocs, maxBytes = ex.allocs, ex.bytes
			}
			if c.allocs > maxAllocs || c.bytes > maxBytes {
				t.Errorf("init of %s allocates %d bytes in %d allocations (at most %d in %d): make what it builds on first use (sync.OnceValue)", pkg, c.bytes, c.allocs, maxBytes, maxAllocs)
			}
		case slices.Contains(mustNotInit, pkg):
		case c.bytes > outsideInitBytes:
			t.Errorf("init of %s allocates %d bytes (at most %d): every acplint process pays for it before it starts", pkg, c.bytes, outsideInitBytes)
		}
	}
	for _, pkg := range mustNotInit {
		_, linked := costs[pkg]
		why, pending := pendingRemoval[pkg]
		switch {
		case linked && !pending:
			t.Errorf("acplint links %s, whose init allocates %d bytes in every process", pkg, costs[pkg].bytes)
		case !linked && pending:
			t.Errorf("%s no longer inits (%s): delete it from pendingRemoval", pkg, why)
		}
	}
	for pkg := range initExceptions {
		if _, ok := costs[pkg]; !ok {
			t.Errorf("initExceptions names %s, which does not init: remove it", pkg)
		}
	}
}

// initCosts runs bin version with the runtime's init trace and returns what
// each package's init allocated.
func initCosts(t *testing.T, bin string) map[string]initCost {
	t.Helper()
	cmd := exec.Command(bin, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("acplint version: %v\n%s", err, stderr.String())
	}
	costs := map[string]initCost{}
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		m := initLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		b, _ := strconv.Atoi(m[2])
		a, _ := strconv.Atoi(m[3])
		costs[m[1]] = initCost{bytes: b, allocs: a}
	}
	return costs
}

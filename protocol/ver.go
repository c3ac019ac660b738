package protocol

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/internal/jsonv"
)

// Version negotiation (ACP-VER-*). A protocolVersion that is not an integer
// from 0 to 65535 (ACP-VER-001) is a codec problem (versionProblem); a
// negotiated version of 2 or more (ACP-VER-005) stops the machine in
// core.go. The checks here judge the negotiation itself and the
// implementation info both sides should send.

// latestKnownVersion is the highest protocol version ACP has published (v2
// is a draft). An agent echoing a higher request claims a version that
// does not exist.
const latestKnownVersion = 2

// wireVersion reads protocolVersion from the raw params or result of an
// initialize message. It is -1 when the member is absent or not an integer
// from 0 to 65535 (ACP-VER-001): the typed value then holds a zero that
// nobody sent, and no rule may read it as version 0.
func wireVersion(raw json.RawMessage) int {
	v, err := jsonv.Parse(raw)
	if err != nil || v.Kind != jsonv.Object {
		return -1
	}
	pv, ok := v.Get("protocolVersion")
	if !ok || pv.Kind != jsonv.Number {
		return -1
	}
	n, err := strconv.ParseUint(pv.Str(), 10, 16)
	if err != nil {
		return -1
	}
	return int(n)
}

// checkClientInfo reports an initialize request without usable clientInfo
// (ACP-VER-006). Missing name or version members are schema problems
// reported by the codec; empty strings pass the schema but say nothing.
func checkClientInfo(p *Phase, c *ctx) {
	if c.m.Dir != domain.FromClient || p.Conn != ConnAwaitingInitialize {
		return // a repeated initialize is ACP-SEQ-003's
	}
	checkImplementation(c, c.m.RawParams, "/params", "clientInfo", "client")
}

// checkNegotiation judges the agent's answer to the first initialize:
// an error where v1 wants a counter-offer (ACP-VER-003), a version above
// the request (ACP-VER-002), the pre-release version 0 (ACP-VER-004) and
// missing agentInfo (ACP-VER-006).
func checkNegotiation(p *Phase, c *ctx, req Pending) {
	if c.m.Dir != domain.FromAgent || req.Line != p.InitLine {
		return
	}
	asked := p.RequestedVersion
	if !c.succeeded() {
		e := c.m.Error
		if e == nil || asked < 0 {
			return // an unreadable version is rightly refused (ACP-VER-001)
		}
		blamesVersion := domain.ErrorCode(e.Code) == codeUnsupportedVersion || versionText().MatchString(e.Message) || versionText().Match(e.Data)
		switch {
		case blamesVersion:
			c.add(findings.VERErrorOnMismatch, "/error",
				"initialize for protocol version %d is refused with error %d (%q) over the version; in v1 an agent that does not support the requested version answers successfully with the latest version it supports, and the client decides whether to continue", asked, e.Code, e.Message)
		case asked != 1:
			// The error does not say why; a request for a version other
			// than 1 makes the version the likely reason.
			f := c.add(findings.VERErrorOnMismatch, "/error",
				"initialize for protocol version %d is refused with error %d (%q), most likely over the version; in v1 an agent that does not support the requested version answers successfully with the latest version it supports, and the client decides whether to continue", asked, e.Code, e.Message)
			f.Severity = findings.SeverityWarning
		}
		return
	}
	got := wireVersion(c.m.RawResult)
	switch {
	case got < 0 || asked < 0:
		// ACP-VER-001 or an unreadable request: nothing to compare.
	case got == 0:
		c.add(findings.VERZero, "/result/protocolVersion",
			"the agent negotiates protocol version 0, the pre-release protocol that preceded v1; acplint treats it as unsupported and does not check the rest of this transcript against v1 rules")
	case got == asked && asked > latestKnownVersion:
		c.add(findings.VEREchoUndefined, "/result/protocolVersion",
			"the agent echoes protocolVersion %d, which no ACP release defines; an agent must answer a request it cannot meet with the latest version it really supports, and the TCK fails an echo of such a request", got)
	case got > asked && asked > 0:
		c.add(findings.VERHigherThanRequested, "/result/protocolVersion",
			"the agent answers protocolVersion %d to a request for %d; an agent that supports the requested version must echo it, so a higher answer is right only for an agent that supports no version up to %d, and a client that speaks only %d has to disconnect", got, asked, asked, asked)
	}
	checkImplementation(c, c.m.RawResult, "/result", "agentInfo", "agent")
}

// codeUnsupportedVersion is v2's "Unsupported protocol version" error; v1
// has no such error, so seeing it is evidence of a version refusal.
const codeUnsupportedVersion domain.ErrorCode = -32022

// versionText matches error text that blames the protocol version.
var versionText = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\bversion\b|protocolversion`) })

// checkImplementation reports missing or empty implementation info
// (ACP-VER-006) in raw, the params or result of the current message. It
// reads the wire form: members of the wrong type are schema problems the
// codec reports, and the typed value would show them as empty strings.
func checkImplementation(c *ctx, raw json.RawMessage, at, member, side string) {
	root, err := jsonv.Parse(raw)
	if err != nil || root.Kind != jsonv.Object {
		return
	}
	info, ok := root.Get(member)
	if !ok || info.Kind == jsonv.Null {
		state := "lacks"
		if ok {
			state = "sets to null"
		}
		c.add(findings.VERMissingInfo, at,
			"initialize %s %q; the %s should name its implementation and version, which peers use in logs, bug reports and workarounds for known quirks", state, member, side)
		return
	}
	if info.Kind != jsonv.Object {
		return
	}
	for _, field := range []string{"name", "version"} {
		v, ok := info.Get(field)
		if !ok || v.Kind != jsonv.String || strings.TrimSpace(v.Str()) != "" {
			continue
		}
		c.add(findings.VERMissingInfo, at+"/"+member+"/"+field,
			"%s.%s is empty; the %s should say which implementation and release it is, which peers use in logs, bug reports and workarounds for known quirks", member, field, side)
	}
}

// versionProblem reports a protocolVersion that is not an integer from 0
// to 65535 (ACP-VER-001), a codec problem.
func versionProblem(p *Phase, c *ctx, pr problem) {
	c.add(findings.VERNotInteger, pr.Pointer, "%s", pr.withDrop(fmt.Sprintf("%s: %s; protocolVersion is an integer from 0 to 65535, such as 1", describeMessage(c.m), pr.Detail)))
}

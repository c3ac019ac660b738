package protocol

import (
	"fmt"
	"strings"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
)

// Authentication (ACP-AUTHN-*). Advertised auth methods do not oblige the
// client to authenticate: the agent asks for it by refusing a request with
// -32000 (auth_required), and the client then calls authenticate with one
// of the advertised methods. authenticate without any advertised method is
// ACP-CAP-019 (cap.go); a terminal method with a command member
// (ACP-AUTHN-006) is a codec problem (terminalCommandProblem).

// authState is the bookkeeping of the AUTHN checks.
type authState struct {
	// authenticated is the line of the latest successful authenticate.
	authenticated int
	// refused maps a session method to the -32000 answer that refused it
	// since the latest successful authenticate (ACP-AUTHN-005).
	refused Map[domain.Method, int]
	// methods maps the id of each auth method of Phase.AuthMethods to the
	// index of the first with that id, and unreadable says one could not
	// be read: an authenticate finds its method without a scan of a list
	// that may be as long as a line (setAuthMethods keeps both).
	methods    Map[domain.AuthMethodID, int]
	unreadable bool
	// cut says the list was longer than MaxKeptEntries (unreadable is
	// then set too).
	cut bool
}

// maxListedAuthMethods is how many advertised ids ACP-AUTHN-001 lists:
// listing them all would make every authenticate cost as much as the
// initialize response.
const maxListedAuthMethods = 5

// checkAuthMethodIDs reports auth methods that share an id (ACP-AUTHN-003).
func checkAuthMethodIDs(p *Phase, c *ctx, req Pending) {
	if !c.succeeded() || c.m.Dir != domain.FromAgent || req.Line != p.InitLine {
		return
	}
	res, ok := resultOf[domain.InitializeResponse](c.m)
	if !ok {
		return
	}
	methods, _ := res.AuthMethods.Get()
	first := map[domain.AuthMethodID]int{}
	for i, m := range methods {
		id, ok := authMethodID(m)
		if !ok {
			continue
		}
		if j, dup := first[id]; dup {
			c.add(findings.AUTHNDuplicateMethodID, fmt.Sprintf("/result/authMethods/%d/id", i),
				"authMethods lists id %q twice (entries %d and %d); authenticate names a method by id alone, so the client cannot say which of the two it chose", id, j, i)
			continue
		}
		first[id] = i
	}
}

// authMethodID returns the id of a known auth method variant.
func authMethodID(m domain.AuthMethod) (domain.AuthMethodID, bool) {
	switch m := m.(type) {
	case domain.AuthMethodAgent:
		return m.ID, true
	case domain.AuthMethodTerminal:
		return m.ID, true
	}
	return "", false
}

// checkAuthenticateMethod reports an authenticate whose methodId was not
// advertised (ACP-AUTHN-001) or names a terminal method, which runs
// outside the connection (ACP-AUTHN-002).
func checkAuthenticateMethod(p *Phase, c *ctx) {
	req, ok := paramsOf[domain.AuthenticateRequest](c.m)
	if !ok || c.m.Dir != domain.FromClient || p.Conn != ConnReady || len(p.AuthMethods) == 0 {
		return // no methods at all is ACP-CAP-019's
	}
	if _, ok := wireString(c.m.RawParams, "/methodId"); !ok {
		return // missing or not a string: a schema problem
	}
	auth := &p.life.auth
	if i, ok := auth.methods.Get(req.MethodID); ok {
		if _, terminal := p.AuthMethods[i].(domain.AuthMethodTerminal); terminal {
			c.add(findings.AUTHNTerminalMethod, "/params/methodId",
				"authenticate names %q, a terminal auth method; the client runs terminal login itself, as a separate interactive process, and must not pass it to authenticate, where the agent has no flow to run", req.MethodID)
		}
		return
	}
	if auth.unreadable {
		return // an auth method acplint could not read may carry that id
	}
	var ids []string
	for _, m := range p.AuthMethods {
		id, ok := authMethodID(m)
		if !ok {
			continue
		}
		if len(ids) == maxListedAuthMethods {
			ids = append(ids, "…")
			break
		}
		ids = append(ids, fmt.Sprintf("%q", id))
	}
	c.add(findings.AUTHNUnknownMethod, "/params/methodId",
		"authenticate names method %q, which is not among the authMethods of the initialize response (%s); the agent has no such flow to run", req.MethodID, strings.Join(ids, ", "))
}

// authenticateAnswered records a successful authentication: session
// methods refused before may now succeed.
func authenticateAnswered(p *Phase, c *ctx, _ Pending) {
	if c.succeeded() {
		p.life.auth.authenticated = c.line()
		p.life.auth.refused = Map[domain.Method, int]{}
	}
}

// checkAuthRequired judges a -32000 (auth_required) answer: without any
// advertised auth method the client has no remedy (ACP-AUTHN-004); with
// them, the refused request shows the client tried an unauthenticated
// session first, which is allowed and recorded (ACP-AUTHN-007).
func checkAuthRequired(p *Phase, c *ctx, req Pending) {
	e := c.m.Error
	if c.m.Dir != domain.FromAgent || e == nil || domain.ErrorCode(e.Code) != domain.CodeAuthRequired || p.Conn != ConnReady {
		return
	}
	if isSessionMethod(req.Method) {
		p.life.auth.refused = p.life.auth.refused.Set(req.Method, c.line())
	}
	if len(p.AuthMethods) == 0 {
		f := c.add(findings.AUTHNRequiredWithoutMethods, "/error/code",
			"%s fails with -32000 (auth_required), but the initialize response advertised no authMethods; the client has no method to pass to authenticate, so the user is stuck", req.Method)
		c.related(f, req.Line, "the refused %s", req.Method)
		return
	}
	if p.life.auth.authenticated > 0 || !sessionSetupMethods[req.Method] {
		return
	}
	var first bool
	if first = p.firstReport(findings.AUTHNUnauthenticatedSession, "", ""); !first {
		return // recorded once per connection
	}
	f := c.add(findings.AUTHNUnauthenticatedSession, "/error/code",
		"%s was sent without authenticating first and the agent answers -32000 (auth_required); not a violation, since advertised auth methods are optional until the agent asks, but the client must now call authenticate with one of the advertised methods before retrying", req.Method)
	c.related(f, req.Line, "the unauthenticated %s", req.Method)
}

// isSessionMethod reports whether m is a session/* method of the client.
func isSessionMethod(m domain.Method) bool {
	return strings.HasPrefix(string(m), "session/")
}

// checkRetryWithoutAuth reports a session method sent again after -32000
// refused it, with no successful authenticate in between
// (ACP-AUTHN-005). It is reported once per refusal.
func checkRetryWithoutAuth(p *Phase, c *ctx) {
	if c.m.Dir != domain.FromClient || c.m.Kind != domain.KindRequest {
		return
	}
	line, refused := p.life.auth.refused.Get(c.m.Method)
	if !refused {
		return
	}
	p.life.auth.refused = p.life.auth.refused.Delete(c.m.Method)
	f := c.add(findings.AUTHNRetryWithoutAuth, "/method",
		"%s is sent again after the agent refused it with -32000 (auth_required) at line %d, with no successful authenticate in between; it will fail the same way (authenticate first, or reconnect after a terminal login)", c.m.Method, line)
	c.related(f, line, "the auth_required error")
}

// terminalCommandProblem reports a terminal auth method that carries
// "command" (ACP-AUTHN-006), a member the codec does not know.
func terminalCommandProblem(p *Phase, c *ctx, pr problem) {
	c.add(findings.AUTHNTerminalCommand, pr.Pointer, `terminal auth method carries "command"; the descriptor cannot provide one (the client runs its configured agent program with the method's args and env), so clients ignore it`)
}

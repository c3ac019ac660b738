package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/findings"
	"github.com/acplint/acplint/internal/jsonv"
)

// checkElicitationRequest applies the rules about an elicitation/create
// request: URL elicitation ids (ACP-ELIC-002) and forms that ask for
// secrets (ACP-ELIC-006). Its shape (ACP-ELIC-001) is the codec's.
func checkElicitationRequest(p *Phase, c *ctx) {
	r, ok := paramsOf[domain.CreateElicitationRequest](c.m)
	if !ok || c.m.Dir == domain.FromClient {
		return
	}
	switch mode := r.Mode.(type) {
	case domain.ElicitationUrlMode:
		id := mode.ElicitationID
		if id == "" {
			return
		}
		if line, open := p.Elicitations.Get(id); open {
			f := c.add(findings.ELICDuplicateID, "/params/elicitationId",
				"elicitationId %q is reused while the URL elicitation that first used it is still outstanding; elicitation/complete names only the id, so the client may close the wrong browser flow", id)
			c.related(f, line, "the outstanding elicitation")
		}
		if !p.Elicitations.Has(id) && p.Elicitations.Len() >= MaxKeptEntries {
			p.dropOldestElicitations(c.line())
		}
		p.Elicitations = p.Elicitations.Set(id, c.line())
		// Completed outlives the elicitations: it keeps MaxKeptEntries
		// ids, and judges no completion once it dropped one.
		if p.Completed.Len() < MaxKeptEntries || p.Completed.Has(id) {
			p.Completed = p.Completed.Set(id, c.line())
		} else if p.completedCut == 0 {
			p.completedCut = c.line()
		}
	case domain.ElicitationFormMode:
		checkSecretFields(c, mode.RequestedSchema)
	}
}

// dropOldestElicitations forgets the oldest quarter of the open URL
// elicitations, for one at line that would be one more than
// MaxKeptEntries: an agent may open any number that are never completed,
// each kept as long as it is open. A reuse of a dropped id while its
// elicitation is outstanding is then not reported (ACP-ELIC-002);
// noteCutElicitations says so.
func (p *Phase) dropOldestElicitations(line int) {
	for _, id := range oldestQuarter(p.Elicitations, func(opened int) int { return opened }) {
		p.Elicitations = p.Elicitations.Delete(id)
	}
	if p.openElicitationsCut == 0 {
		p.openElicitationsCut = line
	}
}

// checkSecretFields reports form properties that look like credentials
// (ACP-ELIC-006), by name or by format "password". It is a heuristic:
// names are split into words so that maxTokens or tokenizer pass.
func checkSecretFields(c *ctx, schema domain.ElicitationSchema) {
	props, _ := schema.Properties.Get()
	for _, name := range sortedKeys(props) {
		ptr := "/params/requestedSchema/properties/" + jsonv.EscapeToken(name)
		if what := secretName(name); what != "" {
			c.add(findings.ELICCredentialField, ptr,
				"form field %q looks like it asks for %s; form mode must not collect secrets or credentials, which go through URL mode so that the user deals with the service directly", name, what)
			continue
		}
		if s, ok := props[name].(domain.StringPropertySchema); ok {
			if format, ok := s.Format.Get(); ok && format == "password" {
				c.add(findings.ELICCredentialField, ptr+"/format",
					"form field %q has format \"password\"; form mode must not collect secrets or credentials, which go through URL mode so that the user deals with the service directly", name)
			}
		}
	}
}

// secretName says what kind of secret a property name suggests, or "".
func secretName(name string) string {
	words := nameWords(name)
	for i, w := range words {
		switch w {
		case "password", "passwd", "passphrase", "pwd":
			return "a password"
		case "secret":
			return "a secret"
		case "token":
			return "a token"
		case "apikey":
			return "an API key"
		case "api":
			if i+1 < len(words) && words[i+1] == "key" {
				return "an API key"
			}
		}
	}
	return ""
}

// nameWords splits a property name into lower-case words at case changes,
// digits and punctuation: "apiKey", "api_key" and "API-Key" all give
// ["api", "key"].
func nameWords(name string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(name)
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r):
			flush()
		case unicode.IsUpper(r) && len(cur) > 0 &&
			(unicode.IsLower(cur[len(cur)-1]) || i+1 < len(rs) && unicode.IsLower(rs[i+1])):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return words
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// checkElicitationAnswer applies the rules about the client's answer to
// elicitation/create: the code for an unadvertised mode (ACP-ELIC-004)
// and the accepted content (ACP-ELIC-005). It also closes URL
// elicitations that will get no elicitation/complete.
func checkElicitationAnswer(p *Phase, c *ctx, req Pending) {
	r, ok := requestParams[domain.CreateElicitationRequest](req)
	if !ok || c.m.Dir == domain.FromAgent {
		return
	}
	var action domain.ElicitationAction
	if res, ok := resultOf[domain.CreateElicitationResponse](c.m); ok && c.succeeded() {
		action = res.Action
	}
	if url, ok := r.Mode.(domain.ElicitationUrlMode); ok {
		if _, accepted := action.(domain.ElicitationAcceptAction); !accepted {
			// Declined, cancelled or refused: the flow never starts, so
			// no elicitation/complete follows and the id is free again.
			if line, open := p.Elicitations.Get(url.ElicitationID); open && line == req.Line {
				p.Elicitations = p.Elicitations.Delete(url.ElicitationID)
			}
		}
	}
	if mode, advertised := elicitationModeAdvertised(p, r.Mode); mode != "" && !advertised {
		switch {
		case c.succeeded():
			f := c.add(findings.ELICUnadvertisedModeCode, "/result",
				"the client answers a %s-mode elicitation with a result although it did not advertise elicitation.%s; a request in an unadvertised mode gets -32602 (Invalid params), which tells the agent the mode is unsupported", mode, mode)
			c.related(f, req.Line, "the elicitation/create")
		case c.m.Error != nil && domain.ErrorCode(c.m.Error.Code) != domain.CodeInvalidParams:
			f := c.add(findings.ELICUnadvertisedModeCode, "/error/code",
				"the client refuses a %s-mode elicitation, which it did not advertise, with %d; the documented code for an unadvertised mode is -32602 (Invalid params), which agents test for to fall back", mode, c.m.Error.Code)
			c.related(f, req.Line, "the elicitation/create")
		}
		return
	}
	form, isForm := r.Mode.(domain.ElicitationFormMode)
	accept, accepted := action.(domain.ElicitationAcceptAction)
	if !isForm || !accepted {
		return
	}
	content, _ := accept.Content.Get()
	if problems := formMismatches(form.RequestedSchema, content); len(problems) > 0 {
		ptr := "/result/content"
		if !accept.Content.IsSet() {
			ptr = "/result"
		}
		f := c.add(findings.ELICContentMismatch, ptr,
			"the accepted form content does not fit the requested schema: %s; the agent has to validate the answer again and may fail on it", strings.Join(problems, "; "))
		c.related(f, req.Line, "the elicitation/create with the schema")
	}
}

// elicitationModeAdvertised returns the name of the mode of a request and
// whether the client advertised it. mode is "" when nothing can be judged:
// a custom mode, or a client that advertised no elicitation at all (the
// method is then unsupported, which the RPC rules check).
func elicitationModeAdvertised(p *Phase, m domain.ElicitationMode) (mode string, advertised bool) {
	if p.ClientCaps == nil {
		return "", false
	}
	caps, ok := p.ClientCaps.Elicitation.Get()
	if !ok {
		return "", false
	}
	switch m.(type) {
	case domain.ElicitationFormMode:
		return "form", caps.Form.IsSet()
	case domain.ElicitationUrlMode:
		return "url", caps.URL.IsSet()
	}
	return "", false
}

// formMismatches lists how accepted content departs from the requested
// schema: missing required fields, fields the schema does not have, and
// values of the wrong type or outside the allowed choices and bounds.
func formMismatches(schema domain.ElicitationSchema, content map[string]domain.ElicitationContentValue) []string {
	var out []string
	props, _ := schema.Properties.Get()
	required, _ := schema.Required.Get()
	for _, name := range required {
		if _, ok := content[name]; !ok {
			out = append(out, fmt.Sprintf("required field %q is missing", name))
		}
	}
	for _, name := range sortedKeys(content) {
		prop, ok := props[name]
		if !ok {
			out = append(out, fmt.Sprintf("field %q is not in the schema", name))
			continue
		}
		if why := valueMismatch(prop, content[name].Raw); why != "" {
			out = append(out, fmt.Sprintf("field %q %s", name, why))
		}
	}
	const maxShown = 5
	if len(out) > maxShown {
		out = append(out[:maxShown], fmt.Sprintf("and %d more", len(out)-maxShown))
	}
	return out
}

// valueMismatch says why raw does not fit prop, or "" when it does.
func valueMismatch(prop domain.ElicitationPropertySchema, raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	switch s := prop.(type) {
	case domain.StringPropertySchema:
		var v string
		if json.Unmarshal(raw, &v) != nil || len(raw) == 0 || raw[0] != '"' {
			return "is " + jsonKind(raw) + ", not a string"
		}
		if choices := stringChoices(s); choices != nil && !slices.Contains(choices, v) {
			return fmt.Sprintf("is %q, not one of %s", v, quoteList(choices))
		}
		n := utf8.RuneCountInString(v)
		if lo, ok := s.MinLength.Get(); ok && n < int(lo) {
			return fmt.Sprintf("has %d characters, fewer than minLength %d", n, lo)
		}
		if hi, ok := s.MaxLength.Get(); ok && n > int(hi) {
			return fmt.Sprintf("has %d characters, more than maxLength %d", n, hi)
		}
	case domain.NumberPropertySchema:
		var v float64
		if jsonKind(raw) != "a number" || json.Unmarshal(raw, &v) != nil {
			return "is " + jsonKind(raw) + ", not a number"
		}
		if lo, ok := s.Minimum.Get(); ok && v < lo {
			return fmt.Sprintf("is %s, below minimum %v", raw, lo)
		}
		if hi, ok := s.Maximum.Get(); ok && v > hi {
			return fmt.Sprintf("is %s, above maximum %v", raw, hi)
		}
	case domain.IntegerPropertySchema:
		var v int64
		if jsonKind(raw) != "a number" || bytes.ContainsAny(raw, ".eE") || json.Unmarshal(raw, &v) != nil {
			return "is " + describeJSON(raw) + ", not an integer"
		}
		if lo, ok := s.Minimum.Get(); ok && v < lo {
			return fmt.Sprintf("is %d, below minimum %d", v, lo)
		}
		if hi, ok := s.Maximum.Get(); ok && v > hi {
			return fmt.Sprintf("is %d, above maximum %d", v, hi)
		}
	case domain.BooleanPropertySchema:
		if jsonKind(raw) != "a boolean" {
			return "is " + jsonKind(raw) + ", not a boolean"
		}
	case domain.MultiSelectPropertySchema:
		var vs []string
		if jsonKind(raw) != "an array" || json.Unmarshal(raw, &vs) != nil {
			return "is " + jsonKind(raw) + ", not an array of strings"
		}
		if choices := itemChoices(s.Items); choices != nil {
			for _, v := range vs {
				if !slices.Contains(choices, v) {
					return fmt.Sprintf("contains %q, not one of %s", v, quoteList(choices))
				}
			}
		}
		if lo, ok := s.MinItems.Get(); ok && uint64(len(vs)) < lo {
			return fmt.Sprintf("has %d items, fewer than minItems %d", len(vs), lo)
		}
		if hi, ok := s.MaxItems.Get(); ok && uint64(len(vs)) > hi {
			return fmt.Sprintf("has %d items, more than maxItems %d", len(vs), hi)
		}
	}
	return ""
}

// stringChoices returns the values a single-select string field allows, or
// nil when any string is allowed.
func stringChoices(s domain.StringPropertySchema) []string {
	if e, ok := s.Enum.Get(); ok {
		return e
	}
	if one, ok := s.OneOf.Get(); ok {
		out := make([]string, 0, len(one))
		for _, o := range one {
			out = append(out, o.Const)
		}
		return out
	}
	return nil
}

func itemChoices(items domain.MultiSelectItems) []string {
	switch it := items.(type) {
	case domain.StringMultiSelectItems:
		return it.Enum
	case domain.TitledMultiSelectItems:
		out := make([]string, 0, len(it.AnyOf))
		for _, o := range it.AnyOf {
			out = append(out, o.Const)
		}
		return out
	}
	return nil
}

func quoteList(vs []string) string {
	if len(vs) > 6 {
		vs = append(vs[:6:6], "…")
	}
	qs := make([]string, len(vs))
	for i, v := range vs {
		qs[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(qs, ", ")
}

// jsonKind names the JSON type of raw for messages.
func jsonKind(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "empty"
	}
	switch raw[0] {
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	case '[':
		return "an array"
	case '{':
		return "an object"
	}
	return "a number"
}

// describeJSON shows a short scalar as written and names anything else.
func describeJSON(raw json.RawMessage) string {
	if k := jsonKind(raw); k == "a number" && len(raw) <= 24 {
		return string(raw)
	}
	return jsonKind(raw)
}

// checkElicitationComplete reports an elicitation/complete for an id no URL
// elicitation carried (ACP-ELIC-003) and closes the elicitation it names.
func checkElicitationComplete(p *Phase, c *ctx) {
	n, ok := paramsOf[domain.CompleteElicitationNotification](c.m)
	if !ok || c.m.Dir == domain.FromClient || n.ElicitationID == "" {
		return
	}
	if _, opened := p.Completed.Get(n.ElicitationID); !opened && p.completedCut == 0 {
		c.add(findings.ELICUnknownComplete, "/params/elicitationId",
			"elicitation/complete names elicitationId %q, which no URL-mode elicitation/create on this connection carried; it completes nothing, and the flow the agent meant stays open in the client", n.ElicitationID)
		return
	}
	p.Elicitations = p.Elicitations.Delete(n.ElicitationID)
}

// The shapes of elicitation/create (ACP-ELIC-001) and of its answer
// (ACP-ELIC-005), codec problems.

func elicitationRequestProblem(p *Phase, c *ctx, pr problem) {
	c.add(findings.ELICRequestShape, pr.Pointer, "%s", pr.withDrop("elicitation/create: "+pr.Detail))
}

func elicitationScopeProblem(p *Phase, c *ctx, pr problem) {
	c.add(findings.ELICRequestShape, pr.Pointer, "elicitation/create carries both \"sessionId\" and \"requestId\"; an elicitation is scoped to exactly one of them, so the client cannot tell where to show it")
}

func answerContentProblem(p *Phase, c *ctx, pr problem) {
	c.add(findings.ELICContentMismatch, pr.Pointer, "elicitation answer carries \"content\" with an action other than accept; only an accepted form returns content, and agents ignore it otherwise")
}

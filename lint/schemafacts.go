package lint

import (
	"github.com/acplint/acplint/domain"
	"github.com/acplint/acplint/schemamodel"
)

// The facts of a schema version beyond the shapes that JSON Schema
// validation checks (schema.go): which methods exist and who sends them,
// (where "_meta" must be an object is judged by package schemacheck,
// with the shapes). Under --schema they come from the
// given file, so that lint and corpus judge traffic by that version
// rather than by the tables compiled into acplint.

// methodTable returns the method table of s for the protocol machine: the
// methods s defines (x-method), stable or not (schemamodel's reading of
// the **UNSTABLE** markers), with the side that implements each (x-side).
//
// A stable file (no unstable marker) describes the stable surface only
// and says nothing about the unstable one: the methods acplint knows as
// unstable stay unstable (ACP-CAP-020, as without --schema) unless the
// file defines them. An unstable superset describes both, so a method it
// does not define is undefined (ACP-EXTN-001), whatever acplint knows of
// it from another version.
func methodTable(s *schemamodel.Schema) *domain.MethodTable {
	var stable []*domain.MethodInfo
	unstable := map[domain.Method]domain.Side{}
	if !s.Superset {
		for name, side := range domain.UnstableMethods {
			unstable[name] = side
		}
	}
	for _, name := range s.Methods() {
		req := s.Message(name, schemamodel.KindRequest)
		note := s.Message(name, schemamodel.KindNotification)
		resp := s.Message(name, schemamodel.KindResponse)
		params := req
		if params == nil {
			params = note
		}
		if params == nil {
			params = resp // a result without params: the method exists all the same
		}
		method := domain.Method(name)
		receiver := receiverOf(params.Handler)
		if req != nil && note != nil && req.Handler != note.Handler {
			receiver = domain.SideEither // mcp/message: each side sends one of the two forms
		}
		if params.Unstable {
			unstable[method] = receiver
			continue
		}
		delete(unstable, method)
		mi := &domain.MethodInfo{Name: method, Receiver: receiver, Notification: req == nil && note != nil}
		if req != nil {
			mi.ParamsDef = req.Def
		} else if note != nil {
			mi.ParamsDef = note.Def
		}
		if resp != nil {
			mi.ResultDef = resp.Def
		}
		stable = append(stable, mi)
	}
	return domain.NewMethodTable(s.File, stable, unstable)
}

// receiverOf maps an x-side (the side that implements a method) onto
// domain's sides; "protocol", "both" and "proxy" methods may be sent by
// either side.
func receiverOf(side schemamodel.Side) domain.Side {
	switch side {
	case schemamodel.SideAgent:
		return domain.SideAgent
	case schemamodel.SideClient:
		return domain.SideClient
	}
	return domain.SideEither
}

// receiverIn returns the side that implements method in table t (nil: the
// compiled tables), stable or unstable, and whether t defines it.
func receiverIn(t *domain.MethodTable, method domain.Method) (domain.Side, bool) {
	if mi, ok := t.Lookup(method); ok {
		return mi.Receiver, true
	}
	return t.Unstable(method)
}

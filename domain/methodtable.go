package domain

// MethodTable is what one schema version says about methods: which it
// defines, whether each is stable, which side implements it and whether it
// is a notification. lint --schema builds one from the file it is given,
// so that the method rules (unknown and unstable methods, wrong
// direction, requests sent as notifications) judge traffic by that
// version rather than by the tables compiled into acplint.
//
// A nil *MethodTable stands for the compiled tables (Methods and
// UnstableMethods): the default path pays a nil check, nothing more.
type MethodTable struct {
	// Schema names the schema file the table comes from, for findings.
	Schema   string
	stable   map[Method]*MethodInfo
	unstable map[Method]Side
}

// NewMethodTable returns the table of schema (its file name) defining the
// stable methods and the unstable ones with the side that implements each.
// The MethodInfos carry the facts a schema states (Name, Receiver,
// Notification, ParamsDef, ResultDef); the compiled types (NewParams,
// NewResult) and EmptyResult, which only the compiled codec uses, stay
// unset.
func NewMethodTable(schema string, stable []*MethodInfo, unstable map[Method]Side) *MethodTable {
	t := &MethodTable{Schema: schema, stable: make(map[Method]*MethodInfo, len(stable)), unstable: make(map[Method]Side, len(unstable))}
	for _, mi := range stable {
		t.stable[mi.Name] = mi
	}
	for name, side := range unstable {
		t.unstable[name] = side
	}
	return t
}

// Lookup returns the stable method called name: LookupMethod for the
// compiled tables.
func (t *MethodTable) Lookup(name Method) (*MethodInfo, bool) {
	if t == nil {
		return LookupMethod(name)
	}
	mi, ok := t.stable[name]
	return mi, ok
}

// Unstable returns the side that implements name when it is an unstable
// method of the table.
func (t *MethodTable) Unstable(name Method) (Side, bool) {
	if t == nil {
		side, ok := UnstableMethods[name]
		return side, ok
	}
	side, ok := t.unstable[name]
	return side, ok
}

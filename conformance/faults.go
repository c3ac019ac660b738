package conformance

import (
	"fmt"
	"strings"
	"time"
)

// Fault is something a real editor does that a perfect client would not,
// which `acplint check --faults` makes the client do. A robust agent
// survives each: it does not crash (CHECK-CRASH) or hang (CHECK-TIMEOUT),
// answers every prompt with a stop reason or an error (ACP-RPC-013), and
// sends nothing for a turn after its response (ACP-TURN-003,
// ACP-CXL-002). What the client does wrong on purpose is not held against
// it (Run.excused).
type Fault string

const (
	// FaultLate answers every agent request only after lateAnswer.
	FaultLate Fault = "late-answer"
	// FaultDuplicate answers every agent request twice.
	FaultDuplicate Fault = "duplicate-answer"
	// FaultFSError fails every fs/read_text_file and fs/write_text_file.
	FaultFSError Fault = "fs-error"
	// FaultCancelPermission answers every permission request "cancelled",
	// as when the user dismisses the dialog, though the turn goes on.
	FaultCancelPermission Fault = "cancel-permission"
	// FaultDisconnect closes the agent's stdin at the first update of a
	// turn, as an editor that quits does.
	FaultDisconnect Fault = "disconnect"
	// FaultOverlap sends a second prompt to the session while the first
	// one runs.
	FaultOverlap Fault = "overlap-prompt"
	// FaultChunked writes every message in three pieces, with a pause
	// between them.
	FaultChunked Fault = "chunked-write"
)

// AllFaults lists every fault, in the order of the documentation.
var AllFaults = []Fault{FaultLate, FaultDuplicate, FaultFSError, FaultCancelPermission, FaultDisconnect, FaultOverlap, FaultChunked}

// How late a late answer is, and how long a chunked write pauses between
// its pieces.
const (
	lateAnswer = 50 * time.Millisecond
	chunkPause = 2 * time.Millisecond
)

// ParseFaults reads a comma-separated fault list; "all" and "none" are
// shorthands.
func ParseFaults(s string) ([]Fault, error) {
	switch strings.TrimSpace(s) {
	case "all":
		return append([]Fault(nil), AllFaults...), nil
	case "none", "":
		return nil, nil
	}
	var out []Fault
	seen := map[Fault]bool{}
	for _, f := range strings.Split(s, ",") {
		fault := Fault(strings.TrimSpace(f))
		known := false
		for _, k := range AllFaults {
			known = known || k == fault
		}
		if !known {
			var names []string
			for _, k := range AllFaults {
				names = append(names, string(k))
			}
			return nil, fmt.Errorf("unknown fault %q (want %s, all or none)", fault, strings.Join(names, ", "))
		}
		if !seen[fault] {
			seen[fault] = true
			out = append(out, fault)
		}
	}
	return out, nil
}

// has reports whether the plan injects fault f.
func (p *Plan) has(f Fault) bool {
	for _, x := range p.Faults {
		if x == f {
			return true
		}
	}
	return false
}

// faultTours are the runs a check with faults adds to its tour: one with
// every fault but the disconnect, which ends the run it happens in, and
// one with the disconnect alone.
func faultTours(pool []Capability, faults []Fault) []*Plan {
	if len(faults) == 0 {
		return nil
	}
	var rest []Fault
	disconnect := false
	for _, f := range faults {
		if f == FaultDisconnect {
			disconnect = true
		} else {
			rest = append(rest, f)
		}
	}
	var plans []*Plan
	if len(rest) > 0 {
		plans = append(plans, &Plan{Version: 1, Caps: append([]Capability(nil), pool...), Faults: rest, Actions: []Action{
			{Kind: ActPrompt, Task: 5, Answers: []int{0, 0, 0}},
			{Kind: ActPrompt, Task: 2, Answers: []int{0, 0, 0}},
			{Kind: ActPrompt, Task: 1, Cancel: 2},
		}})
	}
	if disconnect {
		plans = append(plans, &Plan{Version: 1, Caps: append([]Capability(nil), pool...), Faults: []Fault{FaultDisconnect}, Actions: []Action{
			{Kind: ActPrompt, Task: 5, Answers: []int{0, 0, 0}},
		}})
	}
	return plans
}

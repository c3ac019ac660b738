package golden

// Examples picks the cases that show rule id: failing, the first case
// that expects a finding of it, and passing, the first case that covers
// it and expects none (nil when there is none).
func Examples(cases []*Case, id string) (failing, passing *Case) {
	for _, c := range cases {
		wants := false
		for _, wl := range c.Want {
			if wl.Rule == id {
				wants = true
			}
		}
		covers := false
		for _, cv := range c.Covers {
			covers = covers || cv == id
		}
		switch {
		case wants && failing == nil:
			failing = c
		case covers && !wants && passing == nil:
			passing = c
		}
	}
	return failing, passing
}

// NotChecked says why rule id is listed in the catalog but not checked,
// from unchecked (as Unchecked returns it); "" when it is checked, or
// proved by a Go test instead of corpus cases.
func NotChecked(unchecked map[string]string, id string) string {
	reason, ok := unchecked[id]
	if _, _, proved := ProvedBy(reason); !ok || proved {
		return ""
	}
	return reason
}

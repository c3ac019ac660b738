// This file is acplint's, not upstream's: it checks the change that
// builds the default rune generators on first use (see README.md).

package rapid

import "testing"

// TestDefaultRuneGeneratorsAreShared checks that String and StringN still
// draw from the one default rune generator, which stringGen.String
// recognises by identity, and that Rune() still makes a new one.
func TestDefaultRuneGeneratorsAreShared(t *testing.T) {
	for _, tc := range []struct {
		gen  *Generator[string]
		want string
	}{
		{String(), "String()"},
		{StringN(1, 5, -1), "StringN(minRunes=1, maxRunes=5, maxLen=-1)"},
		{StringOf(Rune()), "StringOf(Rune())"},
	} {
		if got := tc.gen.String(); got != tc.want {
			t.Errorf("generator is %q, want %q", got, tc.want)
		}
	}
}

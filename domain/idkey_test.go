package domain

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestIDKeyComparesAsJSON(t *testing.T) {
	same := [][]string{
		{`1`, `1.0`, `1e0`, `10e-1`, `0.1e1`, `1.000E+0`, ` 1 `, `100e-2`},
		{`0`, `-0`, `0.0`, `-0.0e5`, `0e999999`, `0E-99999999999999999999999`},
		{`-1e2`, `-100`, `-100.00`, `-0.001e5`},
		{`100`, `1e2`, `10e1`, `1000e-1`, `100.0`},
		{`123456789012345678901234567890`, `1.23456789012345678901234567890e29`},
		{`1e999999`, `10e999998`, `0.1e1000000`},
		{`1e-999999`, `10e-1000000`},
		// Exponents beyond int64: the shift is added digit by digit.
		{`1e99999999999999999999`, `10e99999999999999999998`, `0.01e100000000000000000001`},
		{`1e-99999999999999999999`, `100e-100000000000000000001`, `0.1e-99999999999999999998`},
		{`1e10000000000000000000`, `0.1e10000000000000000001`, `10e9999999999999999999`},
		{`"a"`, `"\u0061"`, `"\u0061"`},
		{`"é"`, `"\u00e9"`, `"\u00E9"`},
		{`"😀"`, `"\ud83d\ude00"`},
		{`"a/b"`, `"a\/b"`},
		{`"\ud800"`, `"\uD800"`},
		{`null`, ` null`},
	}
	different := [][2]string{
		{`1`, `"1"`},
		{`0`, `"0"`},
		{`1`, `2`},
		{`1`, `-1`},
		{`1e999999`, `1e999998`},
		{`1e999999`, `2e999999`},
		{`1e99999999999999999999`, `1e99999999999999999998`},
		{`1e10000000000000000000`, `1e9999999999999999999`},
		{`9007199254740993`, `9007199254740992`},
		{`0.1`, `1`},
		{`null`, `"null"`},
		{`"\ud800"`, `"\ufffd"`},
		{`"a"`, `"A"`},
		{`""`, `null`},
		{`true`, `"true"`},
		{`1`, ``},
	}
	for _, group := range same {
		want := idKey([]byte(group[0]))
		for _, id := range group[1:] {
			if got := idKey([]byte(id)); got != want {
				t.Errorf("key(%s) = %q, key(%s) = %q: want equal", id, got, group[0], want)
			}
		}
	}
	for _, pair := range different {
		if a, b := idKey([]byte(pair[0])), idKey([]byte(pair[1])); a == b {
			t.Errorf("key(%s) == key(%s) == %q: want different", pair[0], pair[1], a)
		}
	}
}

// An invalid number or string is keyed by its exact text, never merged
// with a valid id.
func TestIDKeyKeepsInvalidIDsApart(t *testing.T) {
	for _, pair := range [][2]string{
		{`01`, `1`}, {`1.`, `1`}, {`+1`, `1`}, {`1e`, `1`}, {`"a`, `"a"`}, {`"\x"`, `"x"`},
	} {
		if a, b := idKey([]byte(pair[0])), idKey([]byte(pair[1])); a == b {
			t.Errorf("key(%s) == key(%s)", pair[0], pair[1])
		}
	}
}

// A huge exponent or mantissa costs time linear in its length: a
// big.Float or big.Int conversion of 1e(a million digits) would not finish.
func TestIDKeyIsLinear(t *testing.T) {
	const n = 1 << 20
	x := "1" + strings.Repeat("9", n)              // X
	xPlus1 := "2" + strings.Repeat("0", n)         // X+1
	xPlus4 := "2" + strings.Repeat("0", n-1) + "3" // X+4
	start := time.Now()
	keys := []string{
		idKey([]byte("1e" + x)),
		idKey([]byte("0.1e" + xPlus1)), // the shift borrows through every digit
		idKey([]byte("10e-" + x)),
		idKey([]byte("100000e-" + xPlus4)),
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("four keys of 1 MiB ids took %v", d)
	}
	if keys[0] != keys[1] || keys[2] != keys[3] || keys[0] == keys[2] {
		t.Errorf("1e+X %.20q…, 0.1e(X+1) %.20q…, 10e-X %.20q…, 100000e-(X+4) %.20q…", keys[0], keys[1], keys[2], keys[3])
	}
}

// The key of the usual id is the id itself: every response looks its
// request up by it, and a copy per lookup was a fifth of what the
// protocol machine allocated.
func TestIDKeyOfAnIntegerAllocatesNothing(t *testing.T) {
	raw := []byte("1234")
	if n := testing.AllocsPerRun(100, func() { _ = idKey(raw) }); n > 0 {
		t.Errorf("idKey(1234) allocates %v times", n)
	}
}

// Only a natural number is keyed by its digits, and one longer than
// maxPlainKey digits never is, however it is spelled.
func TestIDKeyDigitsOnlyForShortNaturals(t *testing.T) {
	long := "1" + strings.Repeat("0", maxPlainKey) // maxPlainKey+1 digits
	for _, id := range []string{long, "1e" + strconv.Itoa(maxPlainKey), "-1", "0.5", "-100", "1e999999"} {
		if k := idKey([]byte(id)); k[0] >= '0' && k[0] <= '9' {
			t.Errorf("key(%s) = %.50q: want the n form", id, k)
		}
	}
	for id, want := range map[string]string{"7": "7", "1.2e1": "12", "100e-2": "1", "-0": "0", "1e39": "1" + strings.Repeat("0", 39)} {
		if k := idKey([]byte(id)); k != want {
			t.Errorf("key(%s) = %q, want %q", id, k, want)
		}
	}
}

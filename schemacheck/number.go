package schemacheck

import (
	"strconv"
	"strings"
)

// decimal is an exact JSON number: 0.digits × 10^point, digits without
// leading or trailing zeros ("" for zero). Comparing two costs one pass
// over their digits, whatever their exponents: a literal like 1e999999999
// must not make acplint compute with a number of a billion digits.
type decimal struct {
	neg    bool
	digits string
	point  int64
}

// maxExponent clamps exponents; numbers beyond it compare by sign and
// magnitude alone, which clamping keeps right.
const maxExponent = 1 << 40

// parseDecimal reads a JSON number literal; ok is false for anything else.
func parseDecimal(lit string) (d decimal, ok bool) {
	s := lit
	if s == "" {
		return d, false
	}
	if s[0] == '-' {
		d.neg = true
		s = s[1:]
	}
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return d, false
	}
	intPart, frac := s[:i], ""
	s = s[i:]
	if s != "" && s[0] == '.' {
		j := 1
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == 1 {
			return d, false
		}
		frac, s = s[1:j], s[j:]
	}
	var exp int64
	if s != "" && (s[0] == 'e' || s[0] == 'E') {
		s = s[1:]
		eneg := false
		if s != "" && (s[0] == '+' || s[0] == '-') {
			eneg = s[0] == '-'
			s = s[1:]
		}
		if s == "" {
			return d, false
		}
		for _, c := range []byte(s) {
			if c < '0' || c > '9' {
				return d, false
			}
			if exp < maxExponent {
				exp = exp*10 + int64(c-'0')
			}
		}
		if eneg {
			exp = -exp
		}
		s = ""
	}
	if s != "" {
		return d, false
	}
	all := intPart + frac
	lead := 0
	for lead < len(all) && all[lead] == '0' {
		lead++
	}
	digits := strings.TrimRight(all[lead:], "0")
	if digits == "" {
		return decimal{}, true // zero, whatever its sign
	}
	d.digits = digits
	d.point = int64(len(intPart)-lead) + exp
	return d, true
}

// cmp compares two decimals: -1, 0 or +1.
func (d decimal) cmp(e decimal) int {
	ds, es := d.sign(), e.sign()
	if ds != es {
		if ds < es {
			return -1
		}
		return 1
	}
	if ds == 0 {
		return 0
	}
	m := d.cmpAbs(e)
	if ds < 0 {
		return -m
	}
	return m
}

func (d decimal) sign() int {
	switch {
	case d.digits == "":
		return 0
	case d.neg:
		return -1
	}
	return 1
}

func (d decimal) cmpAbs(e decimal) int {
	if d.point != e.point {
		if d.point < e.point {
			return -1
		}
		return 1
	}
	return strings.Compare(d.digits, e.digits)
}

// isInteger says whether the literal is an integer as the validator
// decided it: exactly, except that it gave up (no integer) on exponents
// beyond a million, as math/big does.
func isInteger(lit string) bool {
	if !strings.ContainsAny(lit, ".eE") {
		return true
	}
	d, ok := parseDecimal(lit)
	if !ok {
		return false
	}
	if exp5 := ratExponent(lit); exp5 > 1e6 || exp5 < -1e6 {
		return false
	}
	return d.digits == "" || int64(len(d.digits)) <= d.point
}

// ratExponent is the power of ten big.Rat.SetString applies to the
// literal's digits (its exponent less the digits after the point), which
// it refuses beyond a million.
func ratExponent(lit string) int64 {
	mant, exp, _ := strings.Cut(strings.ToLower(lit), "e")
	var e int64
	if exp != "" {
		neg := exp[0] == '-'
		exp = strings.TrimLeft(exp, "+-")
		for _, c := range []byte(exp) {
			if e < maxExponent {
				e = e*10 + int64(c-'0')
			}
		}
		if neg {
			e = -e
		}
	}
	if _, frac, ok := strings.Cut(mant, "."); ok {
		e -= int64(len(frac))
	}
	return e
}

// bound is a numeric keyword's value.
type bound struct {
	dec decimal
	f   float64 // for messages
}

func newBound(lit string) (*bound, bool) {
	d, ok := parseDecimal(lit)
	if !ok {
		return nil, false
	}
	f, _ := strconv.ParseFloat(lit, 64)
	return &bound{dec: d, f: f}, true
}

package epeejson

import (
	"math"
	"math/big"
	"strconv"
)

// The conversions run_handler applies to a number literal, which it hands to
// the C library as a pointer into the body: strtoull/strtoll/strtod read the
// longest prefix they understand and stop there, and the literal is rejected
// only when errno is set (ERANGE). No conversion at all ("-", "-.") is not an
// error in glibc: the value is 0.

// strtoull converts a literal that starts with a digit and has no '.', 'e', 'E':
// the leading run of digits, or false if it exceeds 2^64-1.
func strtoull(lit string) (uint64, bool) {
	var n uint64
	for i := 0; i < len(lit) && isDigit(lit[i]); i++ {
		d := uint64(lit[i] - '0')
		if n > (math.MaxUint64-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}

// strtoll converts a literal that starts with '-' and has no '.', 'e', 'E': the
// digits right after the '-' (none gives 0), or false below -2^63.
func strtoll(lit string) (int64, bool) {
	var mag uint64 // magnitude, at most 2^63
	for i := 1; i < len(lit) && isDigit(lit[i]); i++ {
		d := uint64(lit[i] - '0')
		if mag > (1<<63-d)/10 {
			return 0, false
		}
		mag = mag*10 + d
	}
	return int64(-mag), true // -(1<<63) wraps to math.MinInt64, as wanted
}

// strtod converts a literal that contains '.', 'e' or 'E' like glibc's strtod
// in the C locale: [-] (digits [. digits] | . digits) [(e|E) [+|-] digits],
// correctly rounded. It fails (ERANGE) when the result overflows to infinity,
// or underflows: a non-zero input that rounds to zero or to an inexact
// subnormal (glibc detects tininess after rounding on x86).
func strtod(lit string) (float64, bool) {
	k := 0
	if lit[0] == '-' {
		k = 1
	}
	mantStart := k
	intDigits := 0
	for k < len(lit) && isDigit(lit[k]) {
		k++
		intDigits++
	}
	fracDigits := 0
	if k < len(lit) && lit[k] == '.' {
		k++
		for k < len(lit) && isDigit(lit[k]) {
			k++
			fracDigits++
		}
	}
	if intDigits+fracDigits == 0 {
		return 0, true // no conversion: +0, errno untouched
	}
	mantEnd := k
	if k < len(lit) && (lit[k] == 'e' || lit[k] == 'E') {
		e := k + 1
		if e < len(lit) && (lit[e] == '+' || lit[e] == '-') {
			e++
		}
		if e < len(lit) && isDigit(lit[e]) {
			for e < len(lit) && isDigit(lit[e]) {
				e++
			}
			k = e
		}
	}
	prefix := lit[:k]
	f, err := strconv.ParseFloat(prefix, 64)
	if err != nil {
		return 0, false // only ErrRange is possible here: overflow
	}
	if math.Abs(f) >= 0x1p-1022 {
		return f, true
	}
	nonZero := false
	for i := mantStart; i < mantEnd; i++ {
		if lit[i] >= '1' && lit[i] <= '9' {
			nonZero = true
			break
		}
	}
	if !nonZero {
		return f, true // an exact zero
	}
	if f == 0 || !exactDecimal(lit[mantStart:mantEnd], prefix[mantEnd:], f) {
		return 0, false
	}
	return f, true
}

// exactDecimal reports whether the decimal mantissa (digits with an optional
// '.') times 10^exponent (exp is "" or "e[+-]digits") equals the subnormal f.
// Reached only for subnormal results, whose exponent is within a few hundred
// of the mantissa's length, so the big numbers stay O(len(input)).
func exactDecimal(mant, exp string, f float64) bool {
	var digits []byte
	scale := 0 // value = digits × 10^(scale)
	seenDot := false
	for i := 0; i < len(mant); i++ {
		if mant[i] == '.' {
			seenDot = true
			continue
		}
		digits = append(digits, mant[i])
		if seenDot {
			scale--
		}
	}
	if len(exp) > 1 {
		e := exp[1:]
		neg := false
		if e[0] == '+' || e[0] == '-' {
			neg = e[0] == '-'
			e = e[1:]
		}
		n := 0
		for i := 0; i < len(e); i++ {
			if n < 1<<30 {
				n = n*10 + int(e[i]-'0')
			}
		}
		if neg {
			n = -n
		}
		scale += n
	}
	if scale >= 0 || scale < -(len(digits)+2000) {
		// A non-zero integer is not subnormal; a value that small rounded to zero.
		return false
	}
	m, ok := new(big.Int).SetString(string(digits), 10)
	if !ok {
		return false
	}
	// digits × 10^scale == mf × 2^-1074  ⇔  digits × 2^1074 == mf × 10^-scale
	frac, exp2 := math.Frexp(math.Abs(f))
	mf := new(big.Int).SetUint64(uint64(math.Ldexp(frac, 53))) // f = mf × 2^(exp2-53)
	lhs := new(big.Int).Lsh(m, uint(53-exp2))
	rhs := new(big.Int).Mul(mf, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-scale)), nil))
	return lhs.Cmp(rhs) == 0
}

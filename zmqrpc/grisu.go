package zmqrpc

import (
	"math"
	"math/big"
	"math/bits"
)

// rapidjson's Writer prints a double with Grisu2 (Loitsch 2010), whose
// digits are not always the shortest that read back (strconv's): an id of
// -12345678901234567890 comes back from monerod as -12345678901234568000.0,
// where the shortest digits would end in …67000.0. This is that algorithm,
// with its 64-bit arithmetic, so that ids echo as monerod echoes them.

type diyFp struct {
	f uint64
	e int
}

func (a diyFp) mul(b diyFp) diyFp {
	h, l := bits.Mul64(a.f, b.f)
	if l&(1<<63) != 0 { // rounding
		h++
	}
	return diyFp{h, a.e + b.e + 64}
}

func (a diyFp) normalize() diyFp {
	s := bits.LeadingZeros64(a.f)
	return diyFp{a.f << s, a.e - s}
}

const (
	dpSignificandSize = 52
	dpExponentBias    = 0x3FF + dpSignificandSize
	dpMinExponent     = -dpExponentBias
	dpHiddenBit       = uint64(1) << 52
	dpSignificandMask = dpHiddenBit - 1
)

func diyFromDouble(d float64) diyFp {
	u := math.Float64bits(d)
	be := int(u >> dpSignificandSize & 0x7FF)
	sig := u & dpSignificandMask
	if be != 0 {
		return diyFp{sig + dpHiddenBit, be - dpExponentBias}
	}
	return diyFp{sig, dpMinExponent + 1}
}

func (a diyFp) normalizeBoundary() diyFp {
	for a.f&(dpHiddenBit<<1) == 0 {
		a.f <<= 1
		a.e--
	}
	const shift = 64 - dpSignificandSize - 2
	return diyFp{a.f << shift, a.e - shift}
}

func (a diyFp) boundaries() (minus, plus diyFp) {
	plus = diyFp{a.f<<1 + 1, a.e - 1}.normalizeBoundary()
	if a.f == dpHiddenBit {
		minus = diyFp{a.f<<2 - 1, a.e - 2}
	} else {
		minus = diyFp{a.f<<1 - 1, a.e - 1}
	}
	minus.f <<= uint(minus.e - plus.e)
	minus.e = plus.e
	return minus, plus
}

// cachedPowers are 10^(-348+8i), i < 87, as 64-bit significands rounded to
// nearest with their binary exponents: the table Grisu uses, computed.
var cachedPowers = func() (out [87]diyFp) {
	for i := range out {
		k := -348 + 8*i
		v := new(big.Float).SetPrec(512).SetInt64(1)
		ten := new(big.Float).SetPrec(512).SetInt64(10)
		for j := 0; j < abs(k); j++ {
			if k > 0 {
				v.Mul(v, ten)
			} else {
				v.Quo(v, ten)
			}
		}
		mant := new(big.Float).SetPrec(512)
		exp := v.MantExp(mant) // v = mant·2^exp, mant in [0.5, 1)
		mant.SetMantExp(mant, 64)
		mant.Add(mant, big.NewFloat(0.5).SetPrec(512))
		f, _ := mant.Int(nil)
		e := exp - 64
		if f.BitLen() > 64 {
			f.Rsh(f, 1)
			e++
		}
		out[i] = diyFp{f.Uint64(), e}
	}
	return out
}()

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func cachedPower(e int) (diyFp, int) {
	dk := float64(-61-e)*0.30102999566398114 + 347
	k := int(dk)
	if dk-float64(k) > 0 {
		k++
	}
	index := k>>3 + 1
	return cachedPowers[index], -(-348 + index<<3)
}

func grisuRound(buf []byte, delta, rest, tenKappa, wpw uint64) {
	for rest < wpw && delta-rest >= tenKappa && (rest+tenKappa < wpw || wpw-rest > rest+tenKappa-wpw) {
		buf[len(buf)-1]--
		rest += tenKappa
	}
}

var pow10u32 = [...]uint32{1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000}

func digitGen(w, mp diyFp, delta uint64, buf []byte, k int) ([]byte, int) {
	oneE := uint(-mp.e)
	oneF := uint64(1) << oneE
	wpw := mp.f - w.f
	p1 := uint32(mp.f >> oneE)
	p2 := mp.f & (oneF - 1)
	kappa := 1
	for kappa < 9 && p1 >= pow10u32[kappa] {
		kappa++
	}
	for kappa > 0 {
		d := p1 / pow10u32[kappa-1]
		p1 %= pow10u32[kappa-1]
		if d != 0 || len(buf) > 0 {
			buf = append(buf, byte('0'+d))
		}
		kappa--
		if tmp := uint64(p1)<<oneE + p2; tmp <= delta {
			k += kappa
			grisuRound(buf, delta, tmp, uint64(pow10u32[kappa])<<oneE, wpw)
			return buf, k
		}
	}
	for {
		p2 *= 10
		delta *= 10
		d := byte(p2 >> oneE)
		if d != 0 || len(buf) > 0 {
			buf = append(buf, '0'+d)
		}
		p2 &= oneF - 1
		kappa--
		if p2 < delta {
			k += kappa
			var scale uint64
			if -kappa < 9 {
				scale = uint64(pow10u32[-kappa])
			}
			grisuRound(buf, delta, p2, oneF, wpw*scale)
			return buf, k
		}
	}
}

// grisu2 gives the digits of v > 0 and the decimal exponent of the last.
func grisu2(v float64) ([]byte, int) {
	d := diyFromDouble(v)
	wm, wp := d.boundaries()
	c, k := cachedPower(wp.e)
	w := d.normalize().mul(c)
	wp = wp.mul(c)
	wm = wm.mul(c)
	wm.f++
	wp.f--
	return digitGen(w, wp, wp.f-wm.f, make([]byte, 0, 20), k)
}

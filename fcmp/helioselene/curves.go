package helioselene

// The curve constants of d06d9518 crypto/helioselene/src/point.rs (big-endian hex).
const (
	heliosBHex  = "22e8c739b0ea70b8be94a76b3ebb7b3b043f6f384113bf3522b49ee1edd73ad4"
	heliosGXHex = "0000000000000000000000000000000000000000000000000000000000000003"
	heliosGYHex = "537b74d97ac0721cbd92668350205f0759003bddc586a5dcd243e639e3183ef4"
	seleneBHex  = "70127713695876c17f51bba595ffe279f3944bdf06ae900e68de0983cb5a4558"
	seleneGXHex = "0000000000000000000000000000000000000000000000000000000000000001"
	seleneGYHex = "7a19d927b85cca9257c93177455c825f938bb198c8f09b37741e0aa6a1d3fdd2"
)

// eqMask returns 1 when a == b and 0 otherwise, without a branch.
func eqMask(a, b uint64) uint64 {
	x := a ^ b
	return 1 ^ ((x | -x) >> 63)
}

// msmWindow picks the Pippenger window width c for n points: the c minimising the additions, about
// ⌈256/c⌉·(n + 2^c) with signed digits (2^(c-1) buckets, each summed twice).
func msmWindow(n int) int {
	best, bestCost := 1, int(^uint(0)>>1)
	for c := 1; c <= 16; c++ {
		cost := (256/c + 1) * (n + 1<<c)
		if cost < bestCost {
			best, bestCost = c, cost
		}
	}
	return best
}

// signedDigits recodes each 256-bit little-endian scalar (below 2^255) into base-2^c digits in
// [-2^(c-1), 2^(c-1)], least significant first, so that the buckets only need the positive half.
func signedDigits(ks [][32]byte, c int) [][]int32 {
	// Bit 255 is clear, so the top window's digit (at most 2^(c-1) - 1 plus a carry) needs no carry out.
	windows := (256 + c - 1) / c
	out := make([][]int32, len(ks))
	flat := make([]int32, len(ks)*windows)
	half := int32(1) << (c - 1)
	for i := range ks {
		d := flat[i*windows : (i+1)*windows]
		var carry int32
		for w := range windows {
			v := int32(bitsAt(&ks[i], w*c, c)) + carry
			carry = 0
			if v > half {
				v -= 1 << c
				carry = 1
			}
			d[w] = v
		}
		out[i] = d
	}
	return out
}

// bitsAt returns the n ≤ 16 bits of the little-endian k starting at bit off (bits past 255 read 0).
func bitsAt(k *[32]byte, off, n int) uint32 {
	var v uint32
	for j := 0; j < 3; j++ {
		if idx := off/8 + j; idx < 32 {
			v |= uint32(k[idx]) << (8 * j)
		}
	}
	return (v >> (off % 8)) & (1<<n - 1)
}

// msmWindowAffine is msmWindow for affine buckets, whose additions (about 6.5 multiplications) cost
// less against the buckets' running sums (a mixed and a projective addition, about 23): the c
// minimising ⌈256/c⌉·(6.5n + 11.5·2^c).
func msmWindowAffine(n int) int {
	best, bestCost := 1, int(^uint(0)>>1)
	for c := 1; c <= 16; c++ {
		cost := (256 + c - 1) / c * (13*n + 23<<c)
		if cost < bestCost {
			best, bestCost = c, cost
		}
	}
	return best
}

// batchAffineMin is the number of points from which the multiscalar multiplication keeps its buckets
// affine (below it the inversions' share outweighs the cheaper additions), and batchAffineOps the
// most additions that share one inversion.
const (
	batchAffineMin = 64
	batchAffineOps = 1024
)

// A batchAffineOp adds point i (negated when neg) to bucket b.
type batchAffineOp struct {
	b, i int32
	neg  bool
}

// The states of an affine bucket.
const (
	bucketEmpty uint8 = iota
	bucketSet
	bucketBusy // a pending addition will set it
)

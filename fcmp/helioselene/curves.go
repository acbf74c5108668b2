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

// Code in this file is the template of selene_msm.go (TestGeneratedInSync keeps them equal up to names;
// `go test -run TestGeneratedInSync -update` rewrites selene_msm.go). Edit this file, not selene_msm.go.

package helioselene

// addAffine sets p = q + (x2, y2) for an affine (hence non-identity) point: algorithm 5 of the same
// paper, one multiplication fewer than Add.
func (p *HeliosPoint) addAffine(q *HeliosPoint, x2, y2 *Field25519) *HeliosPoint {
	var t0, t1, t2, t3, t4, x3, y3, z3 Field25519
	t0.Mul(&q.x, x2)
	t1.Mul(&q.y, y2)
	t3.Add(x2, y2)
	t4.Add(&q.x, &q.y)
	t3.Mul(&t3, &t4)
	t4.Add(&t0, &t1)
	t3.Sub(&t3, &t4)
	t4.Mul(y2, &q.z)
	t4.Add(&t4, &q.y)
	y3.Mul(x2, &q.z)
	y3.Add(&y3, &q.x)
	z3.Mul(&heliosB, &q.z)
	x3.Sub(&y3, &z3)
	z3.Add(&x3, &x3)
	x3.Add(&x3, &z3)
	z3.Sub(&t1, &x3)
	x3.Add(&t1, &x3)
	y3.Mul(&heliosB, &y3)
	t1.Add(&q.z, &q.z)
	t2.Add(&t1, &q.z)
	y3.Sub(&y3, &t2)
	y3.Sub(&y3, &t0)
	t1.Add(&y3, &y3)
	y3.Add(&t1, &y3)
	t1.Add(&t0, &t0)
	t0.Add(&t1, &t0)
	t0.Sub(&t0, &t2)
	t1.Mul(&t4, &y3)
	t2.Mul(&t0, &y3)
	y3.Mul(&x3, &z3)
	y3.Add(&y3, &t2)
	x3.Mul(&t3, &x3)
	x3.Sub(&x3, &t1)
	z3.Mul(&t4, &z3)
	t1.Mul(&t3, &t0)
	z3.Add(&z3, &t1)
	p.x, p.y, p.z = x3, y3, z3
	return p
}

// heliosBatchAffine returns the affine coordinates of points (none of them the identity) with one
// inversion (Montgomery's trick).
func heliosBatchAffine(points []HeliosPoint) (xs, ys []Field25519) {
	n := len(points)
	xs = make([]Field25519, n)
	ys = make([]Field25519, n)
	if n == 0 {
		return
	}
	acc := make([]Field25519, n)
	var run Field25519
	run.One()
	for i := range points {
		acc[i] = run
		run.Mul(&run, &points[i].z)
	}
	run.Invert(&run)
	for i := n - 1; i >= 0; i-- {
		var zi Field25519
		zi.Mul(&run, &acc[i])
		run.Mul(&run, &points[i].z)
		xs[i].Mul(&points[i].x, &zi)
		ys[i].Mul(&points[i].y, &zi)
	}
	return
}

// HeliosMultiScalarMult returns Σ scalars[i]·points[i] (the reference's multiexp_vartime). It is
// variable-time: it serves verification, where every input is public. It panics if the slices' lengths
// differ (a caller's bug, never input data).
func HeliosMultiScalarMult(scalars []HelioseleneField, points []HeliosPoint) *HeliosPoint {
	if len(scalars) != len(points) {
		panic("helioselene: HeliosMultiScalarMult of slices of different lengths")
	}
	// Identity points and zero scalars add nothing; the rest go affine with one inversion, so that the
	// bucket additions can be mixed ones.
	var ks [][32]byte
	var ps []HeliosPoint
	for i := range points {
		if points[i].IsIdentity() || scalars[i].IsZero() {
			continue
		}
		ks = append(ks, scalars[i].Bytes())
		ps = append(ps, points[i])
	}
	r := NewHeliosPoint()
	if len(ps) == 0 {
		return r
	}
	xs, ys := heliosBatchAffine(ps)
	c := msmWindow(len(ps))
	digits := signedDigits(ks, c)
	windows := len(digits[0])
	buckets := make([]HeliosPoint, 1<<(c-1))
	var sum, acc HeliosPoint
	var negY Field25519
	for w := windows - 1; w >= 0; w-- {
		for i := 0; i < c; i++ {
			r.Double(r)
		}
		for i := range buckets {
			buckets[i].Identity()
		}
		for i := range ps {
			d := digits[i][w]
			switch {
			case d > 0:
				buckets[d-1].addAffine(&buckets[d-1], &xs[i], &ys[i])
			case d < 0:
				negY.Negate(&ys[i])
				buckets[-d-1].addAffine(&buckets[-d-1], &xs[i], &negY)
			}
		}
		// Σ (j+1)·bucket[j] as a running sum from the top bucket down.
		sum.Identity()
		acc.Identity()
		for j := len(buckets) - 1; j >= 0; j-- {
			sum.Add(&sum, &buckets[j])
			acc.Add(&acc, &sum)
		}
		r.Add(r, &acc)
	}
	return r
}

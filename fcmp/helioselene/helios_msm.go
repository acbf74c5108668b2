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
	if len(ps) >= batchAffineMin {
		c := msmWindowAffine(len(ps))
		return heliosMSMBatchAffine(xs, ys, signedDigits(ks, c), c)
	}
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

// heliosMSMBatchAffine is Pippenger's method with affine buckets, every window's at once: adding a point
// to an affine bucket takes a division, and Montgomery's trick shares one inversion among up to
// batchAffineOps pending additions (three multiplications each), so that an addition costs about six
// multiplications instead of the eleven of a projective mixed addition. A bucket takes part in one
// pending addition at a time; a point meeting a busy bucket waits for the next round. Equal x
// coordinates (a doubling, or a point and its negation) are handled on their own.
func heliosMSMBatchAffine(xs, ys []Field25519, digits [][]int32, c int) *HeliosPoint {
	windows := len(digits[0])
	nb := 1 << (c - 1)
	bx := make([]Field25519, windows*nb)
	by := make([]Field25519, windows*nb)
	state := make([]uint8, windows*nb) // bucketEmpty, bucketSet, bucketBusy
	batch := min(batchAffineOps, max(16, windows*nb/8))
	pending := make([]batchAffineOp, 0, batch)
	den := make([]Field25519, batch)
	prefix := make([]Field25519, batch)
	var deferred, next []batchAffineOp

	flush := func() {
		// den[k] = x_i - x_bucket, inverted all at once.
		var acc Field25519
		acc.One()
		for k, op := range pending {
			den[k].Sub(&xs[op.i], &bx[op.b])
			prefix[k] = acc
			acc.Mul(&acc, &den[k])
		}
		acc.Invert(&acc)
		var inv, lambda, x3, y3, py Field25519
		for k := len(pending) - 1; k >= 0; k-- {
			op := pending[k]
			inv.Mul(&acc, &prefix[k])
			acc.Mul(&acc, &den[k])
			py = ys[op.i]
			if op.neg {
				py.Negate(&py)
			}
			// λ = (y_i - y_b)/(x_i - x_b), x3 = λ² - x_b - x_i, y3 = λ(x_b - x3) - y_b.
			lambda.Sub(&py, &by[op.b])
			lambda.Mul(&lambda, &inv)
			x3.Square(&lambda)
			x3.Sub(&x3, &bx[op.b])
			x3.Sub(&x3, &xs[op.i])
			y3.Sub(&bx[op.b], &x3)
			y3.Mul(&y3, &lambda)
			y3.Sub(&y3, &by[op.b])
			bx[op.b], by[op.b] = x3, y3
			state[op.b] = bucketSet
		}
		pending = pending[:0]
	}
	add := func(op batchAffineOp) {
		b := op.b
		switch state[b] {
		case bucketEmpty:
			bx[b] = xs[op.i]
			by[b] = ys[op.i]
			if op.neg {
				by[b].Negate(&by[b])
			}
			state[b] = bucketSet
			return
		case bucketBusy:
			next = append(next, op)
			return
		}
		if bx[b].Equal(&xs[op.i]) {
			py := ys[op.i]
			if op.neg {
				py.Negate(&py)
			}
			if !by[b].Equal(&py) {
				state[b] = bucketEmpty // P + (-P)
				return
			}
			// 2P: λ = (3x² + a)/(2y) with a = -3 (no point of a prime-order curve has y = 0).
			var num, d, lambda, x3, y3, three Field25519
			three.SetUint64(3)
			num.Square(&bx[b])
			num.Sub(&num, &heliosBaseOne)
			num.Mul(&num, &three)
			d.Double(&by[b])
			d.Invert(&d)
			lambda.Mul(&num, &d)
			x3.Square(&lambda)
			x3.Sub(&x3, &bx[b])
			x3.Sub(&x3, &bx[b])
			y3.Sub(&bx[b], &x3)
			y3.Mul(&y3, &lambda)
			y3.Sub(&y3, &by[b])
			bx[b], by[b] = x3, y3
			return
		}
		state[b] = bucketBusy
		pending = append(pending, op)
		if len(pending) == batch {
			flush()
		}
	}
	for i := range xs {
		for w, d := range digits[i] {
			switch {
			case d > 0:
				add(batchAffineOp{b: int32(w*nb + int(d) - 1), i: int32(i)})
			case d < 0:
				add(batchAffineOp{b: int32(w*nb + int(-d) - 1), i: int32(i), neg: true})
			}
		}
	}
	flush()
	for len(next) > 0 {
		deferred, next = next, deferred[:0]
		for _, op := range deferred {
			add(op)
		}
		flush()
	}

	// Σ_w 2^(cw)·Σ_j (j+1)·bucket[w][j], the inner sums as running sums from the top bucket down.
	r := NewHeliosPoint()
	var sum, acc HeliosPoint
	for w := windows - 1; w >= 0; w-- {
		for range c {
			r.Double(r)
		}
		sum.Identity()
		acc.Identity()
		for j := nb - 1; j >= 0; j-- {
			if b := w*nb + j; state[b] == bucketSet {
				sum.addAffine(&sum, &bx[b], &by[b])
			}
			acc.Add(&acc, &sum)
		}
		r.Add(r, &acc)
	}
	return r
}

var heliosBaseOne = func() (o Field25519) { o.One(); return }()

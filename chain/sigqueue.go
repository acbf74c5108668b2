package chain

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// sigQueue verifies the signatures of a batch's transactions (AddBatch) on
// GOMAXPROCS workers while the writer checks the batch's later blocks: one
// block's transactions are few (a dozen on a busy chain, often one or two),
// so verifying them block by block leaves cores idle between blocks, and
// the writer's own work (reading rings, proof of work, appending) waits for
// the slowest transaction of each block.
type sigQueue struct {
	c      *Chain
	jobs   chan sigJob
	wg     sync.WaitGroup
	failed atomic.Bool
}

type sigJob struct {
	t   *txCheck
	key [32]byte
}

func newSigQueue(c *Chain) *sigQueue {
	q := &sigQueue{c: c, jobs: make(chan sigJob, 256)}
	for range runtime.GOMAXPROCS(0) {
		q.wg.Add(1)
		go q.work()
	}
	return q
}

func (q *sigQueue) work() {
	defer q.wg.Done()
	for j := range q.jobs {
		if q.failed.Load() {
			continue // the batch is checked again anyway
		}
		if err := q.c.verifyTx(j.t); err != nil {
			// Not logged: the batch's second pass verifies this
			// transaction again in its block's check and reports it.
			q.failed.Store(true)
			continue
		}
		q.c.verified.rememberSig(j.key)
	}
}

// submit queues the signatures of a block's transactions not verified
// before over the same rings (their rings are resolved: t.rings).
func (q *sigQueue) submit(checks []*txCheck) {
	for _, t := range checks {
		key := sigCacheKey(t.id, t.rings)
		if q.c.verified.sigKnown(key) {
			continue
		}
		q.jobs <- sigJob{t: t, key: key}
	}
}

// wait ends the queue once every queued signature is verified, and
// reports whether all of them passed.
func (q *sigQueue) wait() bool {
	close(q.jobs)
	q.wg.Wait()
	return !q.failed.Load()
}

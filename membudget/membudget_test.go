package membudget

import (
	"sync"
	"testing"
)

// TestGlobalRefusesNewest: claims fill the global total; the claim that
// would pass it is refused and takes nothing, what is held stays held, and
// a release makes room again.
func TestGlobalRefusesNewest(t *testing.T) {
	const total = 1 << 20
	const room = total - total/reserveDiv // what large claims may fill
	b := New(total)
	a := NewAccount[string](b, 0)
	if !a.Acquire("x", room-100_000) || !a.Acquire("y", 100_000) {
		t.Fatal("claims within the total refused")
	}
	if a.Acquire("z", 2000) {
		t.Fatal("a large claim past the total's room was granted")
	}
	if st := b.Stats(); st.Used != room || st.Refused != 1 || st.Peak != room {
		t.Fatalf("budget stats %+v, want used %d, refused 1, peak %d", st, room, room)
	}
	if a.Held("x") != room-100_000 || a.Held("y") != 100_000 || a.Held("z") != 0 {
		t.Fatalf("holdings x=%d y=%d z=%d after the refusal", a.Held("x"), a.Held("y"), a.Held("z"))
	}
	a.Release("x", 50_000)
	if !a.Acquire("z", 50_000) {
		t.Fatal("a claim after a release refused")
	}
	if st := a.Stats(); st.Used != room || st.Clients != 3 || st.Claims != 3 || st.Refused != 1 {
		t.Fatalf("account stats %+v", st)
	}
}

// TestSmallClaimsKeepReserve: large claims fill the total only up to its
// reserve; small ones (a light client's answer) still fit there, up to the
// whole total and never past it.
func TestSmallClaimsKeepReserve(t *testing.T) {
	const total = 1 << 20
	b := New(total)
	a := NewAccount[int](b, 0)
	for i := 0; a.Acquire(i, 100_000); i++ {
	}
	if used := b.Stats().Used; used > total-total/reserveDiv {
		t.Fatalf("large claims filled %d, past the reserve", used)
	}
	small := int64(total / smallDiv)
	if !a.Acquire(-1, small) {
		t.Fatal("a small claim was refused while the reserve is free")
	}
	for a.Acquire(-2, small) {
	}
	if used := b.Stats().Used; used > total || used < total-small {
		t.Fatalf("small claims filled %d of %d", used, total)
	}
}

// TestLeaseStepsKeepReserve: a lease grown in small steps (an answer
// claimed as it is built) counts as the large claim it becomes, so that
// many of them stop at the reserve, as large claims do, and a light
// client's small claim still fits.
func TestLeaseStepsKeepReserve(t *testing.T) {
	const total = 1 << 20
	b := New(total)
	a := NewAccount[int](b, 0)
	// Answers of 64 kB, each claimed in steps small enough to pass as
	// small claims one by one, until one is refused.
	step, answer := int64(total/smallDiv/4), int64(64<<10)
	for i := 0; ; i++ {
		l := NewLease(a, i)
		for l.Held() < answer && l.Grow(step) {
		}
		if l.Held() < answer {
			break
		}
	}
	// The lease refused holds its first steps, a small claim's worth.
	if used, most := b.Stats().Used, int64(total-total/reserveDiv+total/smallDiv); used > most {
		t.Fatalf("leases grown in steps filled %d, past the reserve (%d)", used, most)
	}
	if !a.Acquire(-1, total/smallDiv) {
		t.Fatal("a small claim was refused while the reserve is free")
	}
}

// TestPerClient: a client holding something cannot pass its limit; one
// holding nothing may take one claim larger than the limit (a lone large
// answer), but not a second in parallel. Other clients are not affected.
func TestPerClient(t *testing.T) {
	b := New(1000)
	a := NewAccount[int](b, 100)
	if !a.Acquire(1, 80) {
		t.Fatal("claim within the limit refused")
	}
	if a.Acquire(1, 30) {
		t.Fatal("a client passed its limit")
	}
	if !a.Acquire(2, 300) {
		t.Fatal("a client holding nothing was refused one large claim")
	}
	if a.Acquire(2, 1) {
		t.Fatal("a client over its limit got more")
	}
	a.Release(2, 300)
	if a.Held(2) != 0 || a.Stats().Clients != 1 {
		t.Fatalf("a client that gave everything back is still counted: %d, %+v", a.Held(2), a.Stats())
	}
}

// TestLeaseGrowsPastLimitAlone: a lease that is its client's only
// holding grows past the per-client limit (a batch or a body and its
// answer); with another holding beside it, it cannot.
func TestLeaseGrowsPastLimitAlone(t *testing.T) {
	b := New(1000)
	a := NewAccount[int](b, 100)
	l := NewLease(a, 1)
	for range 5 {
		if !l.Grow(60) {
			t.Fatalf("a lone lease was refused at %d bytes", l.Held())
		}
	}
	l.Release()
	l.Release()
	if b.Stats().Used != 0 {
		t.Fatalf("used %d after release", b.Stats().Used)
	}
	if !a.Acquire(1, 10) {
		t.Fatal("refused")
	}
	l = NewLease(a, 1)
	if !l.Grow(60) || l.Grow(60) {
		t.Fatalf("a lease beside another holding: held %d, want 60 and the second step refused", l.Held())
	}
	if l.Grow(1000) {
		t.Fatal("a lease passed the global total")
	}
	var zero Lease[int]
	if !zero.Grow(1 << 40) {
		t.Fatal("a lease without an account refused")
	}
	zero.Release()
}

// TestNoGlobalBound: total <= 0 bounds nothing globally.
func TestNoGlobalBound(t *testing.T) {
	a := NewAccount[int](New(0), 0)
	for i := range 2 {
		if !a.Acquire(1, 1<<50) {
			t.Fatalf("claim %d refused without bounds", i+1)
		}
	}
}

// TestOverRelease: giving back more than held cannot open the bound.
func TestOverRelease(t *testing.T) {
	b := New(100)
	a := NewAccount[int](b, 0)
	a.Acquire(1, 10)
	a.Release(1, 50)
	if st := b.Stats(); st.Used != 0 {
		t.Fatalf("used %d after an over-release, want 0", st.Used)
	}
	if a.Acquire(2, 101) {
		t.Fatal("an over-release opened the bound")
	}
}

// TestSharedTotal: two accounts (RPC and P2P) draw on one total.
func TestSharedTotal(t *testing.T) {
	const total = 1 << 20
	const room = total - total/reserveDiv
	b := New(total)
	rpc := NewAccount[string](b, 0)
	p2p := NewAccount[uint64](b, 0)
	if !rpc.Acquire("a", room-10_000) {
		t.Fatal("refused")
	}
	if p2p.Acquire(7, 10_001) {
		t.Fatal("the second account passed the shared total")
	}
	if !p2p.Acquire(7, 10_000) {
		t.Fatal("refused within the shared total")
	}
}

// TestConcurrentNeverPastTotal: many goroutines claiming and releasing at
// once never hold more than the total together.
func TestConcurrentNeverPastTotal(t *testing.T) {
	b := New(1000)
	a := NewAccount[int](b, 300)
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 2000 {
				n := int64(1 + (g*7+i)%97)
				if a.Acquire(g%5, n) {
					if st := b.Stats(); st.Used > 1000 {
						t.Errorf("used %d past the total", st.Used)
					}
					a.Release(g%5, n)
				}
			}
		}()
	}
	wg.Wait()
	if st := b.Stats(); st.Used != 0 || st.Peak > 1000 {
		t.Fatalf("after the run: %+v", st)
	}
	if st := a.Stats(); st.Clients != 0 {
		t.Fatalf("clients left: %+v", st)
	}
}

// TestSubLimit: an account's own limit refuses the newest claim past it
// while the global total still has room, and other accounts keep the
// rest of the total.
func TestSubLimit(t *testing.T) {
	const total = 1 << 20
	b := New(total)
	send := NewAccount[int](b, 0).WithLimit(100_000)
	rpc := NewAccount[int](b, 0)
	if !send.Acquire(1, 60_000) || !send.Acquire(2, 40_000) {
		t.Fatal("claims within the sub-limit refused")
	}
	if send.Acquire(3, 1) {
		t.Fatal("a claim past the account's sub-limit was granted")
	}
	if !rpc.Acquire(1, 500_000) {
		t.Fatal("another account was refused within the total")
	}
	if st := send.Stats(); st.Limit != 100_000 || st.Used != 100_000 || st.Refused != 1 {
		t.Fatalf("account stats %+v", st)
	}
	send.Release(1, 60_000)
	if !send.Acquire(3, 60_000) {
		t.Fatal("a claim after a release refused")
	}
}

// TestTakeCountsWithoutRefusing: Take counts bytes past every bound, and
// what it took leaves less room to the refusable claims of every account.
func TestTakeCountsWithoutRefusing(t *testing.T) {
	const total = 1 << 20
	b := New(total)
	blocks := NewAccount[int](b, 10).WithLimit(10)
	rpc := NewAccount[int](b, 0)
	blocks.Take(0, total/2)
	if got := blocks.Held(0); got != total/2 {
		t.Fatalf("Take counted %d", got)
	}
	if got, want := b.Room(), int64(total-total/reserveDiv-total/2); got != want {
		t.Fatalf("room %d, want %d", got, want)
	}
	if rpc.Acquire(1, total/2) {
		t.Fatal("a claim that fits the total only without the taken bytes was granted")
	}
	if !rpc.Acquire(1, b.Room()) {
		t.Fatal("a claim of the room left was refused")
	}
	if b.Room() != 0 {
		t.Fatalf("room %d after filling it", b.Room())
	}
	blocks.Release(0, total/2)
	if st := b.Stats(); st.Used != total-total/reserveDiv-total/2 {
		t.Fatalf("used %d after the release", st.Used)
	}
	if New(0).Room() <= 0 {
		t.Fatal("an unbounded budget has no room")
	}
}

// TestAcquireGlobal: a claim against the global total only passes the
// account's and the client's limits, and never the total.
func TestAcquireGlobal(t *testing.T) {
	const total = 1 << 20
	b := New(total)
	a := NewAccount[int](b, 100).WithLimit(1000)
	if !a.Acquire(1, 1000) {
		t.Fatal("refused within the limits")
	}
	if a.Acquire(2, 10) {
		t.Fatal("a claim past the account's limit was granted")
	}
	if !a.AcquireGlobal(1, 500) || a.Held(1) != 1500 {
		t.Fatalf("a global-only claim past the account's and client's limits: held %d", a.Held(1))
	}
	small := int64(total / smallDiv)
	for a.AcquireGlobal(2, small) {
	}
	if st := b.Stats(); st.Used > total || st.Used < total-small {
		t.Fatalf("global-only claims filled %d of %d", st.Used, total)
	}
}

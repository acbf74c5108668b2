package httpd

import (
	"net/netip"

	"github.com/gonero/gonero/membudget"
)

// The memory budget (Config.Memory, docs/public-node.md#memory-budget).
// What a request makes the server hold, its body and its answer, is
// claimed from the node's memory budget for the connection's address
// group, from the moment the request is handed to its route until its
// answer has been written (the connection's next read, or its close). A
// claim that does not fit is refused, the newest claimant losing:
//
//   - a body announced (Content-Length) larger than what the global budget
//     has free is refused before it is read, with the 413 of a body over
//     the limit;
//   - a body that does not fit once read gets the busy answer without its
//     route running;
//   - an answer that does not fit is dropped and the busy answer sent
//     instead. A route building a large answer in steps (a JSON-RPC batch)
//     claims as it goes with Request.Reserve, so that it stops before the
//     memory is taken.
//
// The busy answer is monerod's (Config.Busy): a wallet takes it as a failed
// call and retries.

// MemoryAccount is the memory budget's account of the RPC: clients are
// address groups (a public IPv4 /24, a public IPv6 /64, a private address).
type MemoryAccount = membudget.Account[netip.Addr]

// grow claims n more bytes for the request being served on c; false:
// refused (or c is closed), nothing taken.
func (c *countedConn) grow(acct *MemoryAccount, n int64) bool {
	if acct == nil || n <= 0 {
		return true
	}
	c.leaseMu.Lock()
	defer c.leaseMu.Unlock()
	if c.closed.Load() {
		return false
	}
	if !c.leaseInit {
		c.lease = membudget.NewLease(acct, c.group.addr)
		c.leaseInit = true
	}
	if !c.lease.Grow(n) {
		return false
	}
	c.leaseHeld.Store(true)
	return true
}

// releaseMemory gives back what the last request on c held: called when
// its answer has been written (the next read), before the next request,
// and at close. Without a claim outstanding it costs one atomic load.
func (c *countedConn) releaseMemory() {
	if !c.leaseHeld.Load() {
		return
	}
	c.leaseMu.Lock()
	c.lease.Release()
	c.leaseHeld.Store(false)
	c.leaseMu.Unlock()
}

// Reserve claims n more bytes of the memory budget for the answer the
// route is building, before it builds them; false: refused, and the route
// should stop and answer briefly (an error). What a route reserved counts
// towards its answer's size when the answer is claimed. Without a budget
// it always succeeds.
func (r *Request) Reserve(n int) bool {
	if r.conn == nil || n <= 0 {
		return true
	}
	if !r.conn.grow(r.memory, int64(n)) {
		r.conn.ln.guard.memoryRefused.Add(1)
		r.conn.ln.guard.pressure()
		return false
	}
	r.reserved += int64(n)
	return true
}

// claimAnswer claims resp's bytes beyond what the route reserved; false:
// refused.
func (s *Server) claimAnswer(req *Request, cc *countedConn, resp *Response) bool {
	extra := int64(resp.Len()) - req.reserved
	if s.cfg.Memory == nil || extra <= 0 {
		return true
	}
	if cc.grow(s.cfg.Memory, extra) {
		return true
	}
	s.guard.memoryRefused.Add(1)
	s.guard.pressure()
	return false
}

// bodyFits reports whether a body of n bytes may be read: the global
// budget has room for it now (the claim itself is made when the request
// is handed to its route).
func (s *Server) bodyFits(n int64) bool {
	return s.cfg.Memory == nil || n <= 0 || s.cfg.Memory.Budget().Free() >= n
}

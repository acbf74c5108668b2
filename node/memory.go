package node

import (
	"net/netip"

	"github.com/gonero/gonero/httpd"
	"github.com/gonero/gonero/membudget"
	"github.com/gonero/gonero/metrics"
	"github.com/gonero/gonero/txpool"
)

// DefaultMemoryBudget is --memory-budget's default: the bytes outsiders
// can make the node hold at once, all parts together
// (docs/public-node.md#memory-budget): RPC request bodies and answers (at
// most half of it, rpcShareDiv), P2P messages being read (levin_in, at most
// --p2p-levin-in-budget) and queued for sending (p2p_send, at most
// --p2p-send-budget), and the sync's received blocks (sync_blocks). Each
// part alone stays at the bound it had when it was bounded apart (RPC 128
// MiB, levin_in 128 MiB, p2p_send 64 MiB), so a single flood meets the
// same bound as before (under 512 MB of RSS with the Go collector's
// headroom: the heap grows to about twice what is live); every flood at
// once is held to 256 MiB together instead of their 320 MiB sum and the
// sync queue's 100 MB beside, under 1 GB of RSS.
const DefaultMemoryBudget = 256 << 20

// rpcShareDiv: the RPC's part may hold at most 1/rpcShareDiv of the total,
// so that an RPC flood leaves P2P room (and P2P's sub-limits leave the RPC
// room: levin_in and p2p_send together are 3/4 of the default total, and
// the last eighth is kept for small claims).
const rpcShareDiv = 2

// rpcClientShare is the part of the RPC's share one address group may hold
// while it holds something else (a group holding nothing may take one
// claim up to the RPC's share: a lone wallet's large answer).
const rpcClientShare = 8

// memoryBudget builds the node's budget and the RPC's account on it, and
// gives the account to the RPC listeners (each listener of the node shares
// it); the P2P node (startP2P) and the ZMQ RPC (startZMQRPC) draw on the
// same budget. A budget of 0
// bounds nothing globally (the accounts still report use, and P2P's
// sub-limits still hold).
func (n *Node) memoryBudget() {
	n.memory = membudget.New(n.cfg.MemoryBudget)
	rpcShare := n.cfg.MemoryBudget / rpcShareDiv
	n.rpcMemory = membudget.NewAccount[netip.Addr](n.memory, rpcShare/rpcClientShare).WithLimit(rpcShare)
	n.main.Memory = n.rpcMemory
	if n.restrict != nil {
		n.restrict.Memory = n.rpcMemory
	}
}

// MemoryBudget is the node's memory budget, for the parts that draw on it
// and for tests.
func (n *Node) MemoryBudget() *membudget.Budget { return n.memory }

// RPCMemory is the RPC's account on the memory budget.
func (n *Node) RPCMemory() *httpd.MemoryAccount { return n.rpcMemory }

// memoryParts reads the budget's use for the metrics: the total, the RPC,
// the P2P parts (levin_in, p2p_send, sync_blocks), the ZMQ RPC's
// (zmq_rpc_requests, zmq_rpc_answers), and the pool (txpool),
// which is reported beside the budget and not counted in it: its bound is
// --max-txpool-weight, what it keeps and drops past it is monerod's
// (consensus-relevant: which transactions a miner sees), and only valid
// transactions paying their fee enter it (docs/public-node.md#memory-budget).
func (n *Node) memoryParts() []metrics.MemoryPart {
	parts := []metrics.MemoryPart{{Stats: n.memory.Stats()}, {Part: "rpc", Stats: n.rpcMemory.Stats()}}
	if n.peers != nil {
		p := n.peers.MemoryParts()
		for _, name := range []string{"levin_in", "p2p_send", "sync_blocks"} {
			parts = append(parts, metrics.MemoryPart{Part: name, Stats: p[name]})
		}
	}
	if n.zmqRPC != nil {
		p := n.zmqRPC.MemoryParts()
		for _, name := range []string{"zmq_rpc_requests", "zmq_rpc_answers"} {
			parts = append(parts, metrics.MemoryPart{Part: name, Stats: p[name]})
		}
	}
	if n.pool != nil {
		count, bytes := n.pool.Stats()
		maxWeight := n.cfg.MaxTxpoolWeight
		if maxWeight == 0 {
			maxWeight = txpool.DefaultMaxWeight
		}
		parts = append(parts, metrics.MemoryPart{Part: "txpool", Outside: true, Stats: membudget.Stats{
			Used: int64(min(bytes, 1<<62)), Limit: int64(min(maxWeight, 1<<62)), Clients: count}})
	}
	return parts
}

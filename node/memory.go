package node

import (
	"net/netip"

	"github.com/gonero/gonero/httpd"
	"github.com/gonero/gonero/membudget"
	"github.com/gonero/gonero/metrics"
)

// DefaultMemoryBudget is --memory-budget's default: the bytes outsiders
// can make the node hold at once (RPC request bodies and answers; P2P's
// buffers are meant to draw on it too), docs/public-node.md#memory-budget.
// 128 MiB held, with the Go collector's headroom (the heap grows to about
// twice what is live before it collects) and the node's own working set,
// keeps a node under 512 MB of RSS under an RPC flood.
const DefaultMemoryBudget = 128 << 20

// rpcClientShare is the part of the budget one RPC address group may hold
// while it holds something else (a group holding nothing may take one
// claim up to the whole budget: a lone wallet's large answer).
const rpcClientShare = 8

// memoryBudget builds the node's budget and the RPC's account on it, and
// gives the account to the RPC listeners (each listener of the node shares
// it). A budget of 0 bounds nothing (the accounts still report use).
func (n *Node) memoryBudget() {
	n.memory = membudget.New(n.cfg.MemoryBudget)
	n.rpcMemory = membudget.NewAccount[netip.Addr](n.memory, n.cfg.MemoryBudget/rpcClientShare)
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

// memoryParts reads the budget's use for the metrics.
func (n *Node) memoryParts() []metrics.MemoryPart {
	return []metrics.MemoryPart{{Stats: n.memory.Stats()}, {Part: "rpc", Stats: n.rpcMemory.Stats()}}
}

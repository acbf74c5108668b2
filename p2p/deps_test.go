package p2p

import "github.com/gonero/gonero/rpc"

// The RPC layer reaches the node through these small interfaces; p2p
// cannot state it itself without importing rpc. That p2p stays below the
// RPC (no rpc, httpd, fasthttp, epeejson or miner among its dependencies)
// is internal/docrefs' TestLayers.
var (
	_ rpc.Peers     = (*Node)(nil)
	_ rpc.SyncQueue = (*Node)(nil)
)

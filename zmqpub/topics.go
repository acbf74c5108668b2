package zmqpub

import (
	"slices"
	"strings"
)

// The topics of monerod 0.18 (src/rpc/zmq_pub.cpp), in its order: within
// one event a subscriber to several topics gets the full message first.
const (
	topicFullChain     = "json-full-chain_main"
	topicMinimalChain  = "json-minimal-chain_main"
	topicMinerData     = "json-full-miner_data"
	topicFullTxpool    = "json-full-txpool_add"
	topicMinimalTxpool = "json-minimal-txpool_add"
)

// topics lists every topic published, in the order of their topicBits.
var topics = []string{topicFullChain, topicMinimalChain, topicMinerData, topicFullTxpool, topicMinimalTxpool}

// Topics returns every topic published (a copy).
func Topics() []string { return slices.Clone(topics) }

type topicBit uint32

const (
	bitFullChain topicBit = 1 << iota
	bitMinimalChain
	bitMinerData
	bitFullTxpool
	bitMinimalTxpool
)

// interestOf is zmq_pub::sub_request's view of one subscription: the topics
// whose names start with it. monerod renders a topic only while some
// subscription names a prefix of it; a subscription that is not such a
// prefix (e.g. "json-full-chain_main:" or "xyz") makes it render nothing,
// although ZMQ's own prefix filter would let such a subscriber receive
// messages rendered for another one.
func interestOf(prefix string) topicBit {
	var bits topicBit
	for i, t := range topics {
		if strings.HasPrefix(t, prefix) {
			bits |= 1 << i
		}
	}
	return bits
}

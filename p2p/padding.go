package p2p

import "github.com/gonero/gonero/portable"

// padGranularity is make_tx_message's: with --pad-transactions a
// transaction message is padded towards a multiple of 1024 bytes, so that
// its size says less about the transactions in it.
const padGranularity = 1024

// padTxs pads msg as monerod's make_tx_message does with
// --pad-transactions (levin_notify.cpp): an estimate of the body's size
// sets the padding ("_", spaces), then the encoded size trims what the
// estimate over-counted. Without the flag msg is left as it is.
func (n *Node) padTxs(msg *portable.NewTransactions) {
	if !n.cfg.PadTransactions {
		return
	}
	bytes := 9 + 4 + varintLen(uint64(len(msg.Txs)))
	for _, tx := range msg.Txs {
		bytes += varintLen(uint64(len(tx))) + len(tx)
	}
	padding := padGranularity - bytes%padGranularity
	if overhead := 2 + varintLen(uint64(padding)); overhead > padding {
		padding = 0
	} else {
		padding -= overhead
	}
	msg.Padding = make([]byte, padding)
	for i := range msg.Padding {
		msg.Padding[i] = ' '
	}
	body, err := portable.Encode(msg.ToSection())
	if err != nil {
		return
	}
	if remove := len(body) % padGranularity; remove > len(msg.Padding) {
		msg.Padding = nil
	} else {
		msg.Padding = msg.Padding[:len(msg.Padding)-remove]
	}
}

// varintLen is the length of Monero's varint (7 bits a byte) of v.
func varintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

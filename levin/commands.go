package levin

import "math"

// Command IDs of monerod v0.18 (P2P_COMMANDS_POOL_BASE = 1000 in
// p2p_protocol_defs.h, BC_COMMANDS_POOL_BASE = 2000 in
// cryptonote_protocol_defs.h). 1004–1006 and 2005 do not exist in v0.18.
const (
	CommandHandshake             uint32 = 1001 // COMMAND_HANDSHAKE (invoke)
	CommandTimedSync             uint32 = 1002 // COMMAND_TIMED_SYNC (invoke)
	CommandPing                  uint32 = 1003 // COMMAND_PING (invoke)
	CommandRequestSupportFlags   uint32 = 1007 // COMMAND_REQUEST_SUPPORT_FLAGS (invoke)
	NotifyNewBlock               uint32 = 2001 // NOTIFY_NEW_BLOCK
	NotifyNewTransactions        uint32 = 2002 // NOTIFY_NEW_TRANSACTIONS
	NotifyRequestGetObjects      uint32 = 2003 // NOTIFY_REQUEST_GET_OBJECTS
	NotifyResponseGetObjects     uint32 = 2004 // NOTIFY_RESPONSE_GET_OBJECTS
	NotifyRequestChain           uint32 = 2006 // NOTIFY_REQUEST_CHAIN
	NotifyResponseChainEntry     uint32 = 2007 // NOTIFY_RESPONSE_CHAIN_ENTRY
	NotifyNewFluffyBlock         uint32 = 2008 // NOTIFY_NEW_FLUFFY_BLOCK
	NotifyRequestFluffyMissingTx uint32 = 2009 // NOTIFY_REQUEST_FLUFFY_MISSING_TX
	NotifyGetTxpoolComplement    uint32 = 2010 // NOTIFY_GET_TXPOOL_COMPLEMENT
)

// CommandMaxBodySize is the per-command body ceiling monerod applies on top
// of the connection limit (cryptonote_connection_context::get_max_bytes,
// docs/p2p-levin.md §2.4); commands without one get math.MaxUint64.
func CommandMaxBodySize(command uint32) uint64 {
	switch command {
	case CommandHandshake, CommandTimedSync:
		return 65536
	case CommandPing, CommandRequestSupportFlags:
		return 4096
	case NotifyNewBlock, NotifyNewTransactions, NotifyResponseGetObjects:
		return 128 << 20
	case NotifyRequestGetObjects:
		return 2 << 20
	case NotifyRequestChain:
		return 512 << 10
	case NotifyResponseChainEntry, NotifyNewFluffyBlock, NotifyGetTxpoolComplement:
		return 4 << 20
	case NotifyRequestFluffyMissingTx:
		return 1 << 20
	}
	return math.MaxUint64
}

// bodyLimit is min(connection limit, command ceiling).
func bodyLimit(connLimit uint64, command uint32) uint64 {
	return min(connLimit, CommandMaxBodySize(command))
}

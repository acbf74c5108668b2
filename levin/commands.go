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

// maxObjectRequestCount is CURRENCY_PROTOCOL_MAX_OBJECT_REQUEST_COUNT
// (cryptonote_protocol_handler.h): handle_request_get_objects drops a peer
// asking for more blocks in one NOTIFY_REQUEST_GET_OBJECTS.
const maxObjectRequestCount = 100

// fieldSlack covers a payload's portable-storage framing (the 9-byte
// storage header, the section's entry count, field names, type bytes and
// length varints) with room to spare: the largest framing monerod writes
// for these payloads is under 64 bytes.
const fieldSlack = 1024

// MaxPayloadSize is the largest body a valid message of command can have,
// checked against the header's declared size before any body byte is read
// (docs/p2p-levin.md §2.4). It is never above CommandMaxBodySize, monerod's
// own ceiling, and is lower only where monerod refuses every larger payload
// of the command after parsing it (dropping the connection), so refusing it
// unread changes nothing a valid peer can see:
//
//   - NOTIFY_REQUEST_GET_OBJECTS: at most maxObjectRequestCount block hashes
//     (handle_request_get_objects drops a peer asking for more), 32 bytes
//     each in one blob, plus the prune flag: 3,200 bytes and fieldSlack.
//
// Every other command keeps monerod's ceiling, for the reasons
// docs/p2p-levin.md §2.4 gives per command: their largest valid payload
// depends on the chain (the block weight limit) or on counts monerod does
// not bound (NOTIFY_NEW_TRANSACTIONS carries every transaction queued for
// a peer, or a whole pool complement). Reader.CommandLimit lowers those
// from what the connection's owner knows.
func MaxPayloadSize(command uint32) uint64 {
	lim := CommandMaxBodySize(command)
	switch command {
	case NotifyRequestGetObjects:
		lim = min(lim, maxObjectRequestCount*32+fieldSlack)
	}
	return lim
}

// bodyLimit is min(connection limit, command limit).
func bodyLimit(connLimit uint64, command uint32) uint64 {
	return min(connLimit, MaxPayloadSize(command))
}

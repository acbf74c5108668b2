package rpctypes

import (
	"math"
	"net/netip"

	"github.com/gonero/gonero/epeejson"
	"github.com/gonero/gonero/peerinfo"
)

// Requests and answers of the operator and explorer endpoints
// (core_rpc_server_commands_defs.h, cryptonote_protocol_defs.h).

// ConnectionInfo is one connection as get_connections and sync_info show
// it (struct connection_info, cryptonote_protocol_defs.h). Its members are
// peerinfo.Connection's, which converts to it.
type ConnectionInfo struct {
	Address           string `json:"address"`
	AddressType       uint64 `json:"address_type"`
	AvgDownload       uint64 `json:"avg_download"`
	AvgUpload         uint64 `json:"avg_upload"`
	ConnectionID      string `json:"connection_id"`
	CurrentDownload   uint64 `json:"current_download"`
	CurrentUpload     uint64 `json:"current_upload"`
	Height            uint64 `json:"height"`
	Host              string `json:"host"`
	Incoming          bool   `json:"incoming"`
	IP                string `json:"ip"`
	LiveTime          uint64 `json:"live_time"`
	LocalIP           bool   `json:"local_ip"`
	Localhost         bool   `json:"localhost"`
	PeerID            string `json:"peer_id"`
	Port              string `json:"port"` // monerod prints the port as a string
	PruningSeed       uint64 `json:"pruning_seed"`
	RecvCount         uint64 `json:"recv_count"`
	RecvIdleTime      uint64 `json:"recv_idle_time"`
	RPCCreditsPerHash uint64 `json:"rpc_credits_per_hash"`
	RPCPort           uint64 `json:"rpc_port"`
	SendCount         uint64 `json:"send_count"`
	SendIdleTime      uint64 `json:"send_idle_time"`
	State             string `json:"state"`
	SupportFlags      uint64 `json:"support_flags"`
}

// Write writes the connection.
func (c *ConnectionInfo) Write(w *epeejson.Writer) {
	w.BeginObject()
	w.KeyString("address", c.Address)
	w.KeyUint("address_type", c.AddressType)
	w.KeyUint("avg_download", c.AvgDownload)
	w.KeyUint("avg_upload", c.AvgUpload)
	w.KeyString("connection_id", c.ConnectionID)
	w.KeyUint("current_download", c.CurrentDownload)
	w.KeyUint("current_upload", c.CurrentUpload)
	w.KeyUint("height", c.Height)
	w.KeyString("host", c.Host)
	w.KeyBool("incoming", c.Incoming)
	w.KeyString("ip", c.IP)
	w.KeyUint("live_time", c.LiveTime)
	w.KeyBool("local_ip", c.LocalIP)
	w.KeyBool("localhost", c.Localhost)
	w.KeyString("peer_id", c.PeerID)
	w.KeyString("port", c.Port)
	w.KeyUint("pruning_seed", c.PruningSeed)
	w.KeyUint("recv_count", c.RecvCount)
	w.KeyUint("recv_idle_time", c.RecvIdleTime)
	w.KeyUint("rpc_credits_per_hash", c.RPCCreditsPerHash)
	w.KeyUint("rpc_port", c.RPCPort)
	w.KeyUint("send_count", c.SendCount)
	w.KeyUint("send_idle_time", c.SendIdleTime)
	w.KeyString("state", c.State)
	w.KeyUint("support_flags", c.SupportFlags)
	w.EndObject()
}

// GetConnectionsResponse is get_connections' answer
// (COMMAND_RPC_GET_CONNECTIONS::response); its status is always OK.
type GetConnectionsResponse struct {
	Connections []ConnectionInfo `json:"connections"` // omitted when empty
}

// Write writes the answer.
func (r *GetConnectionsResponse) Write(w *epeejson.Writer) {
	w.BeginObject()
	WriteList(w, "connections", r.Connections, (*ConnectionInfo).Write)
	w.KeyString("status", StatusOK)
	WriteUntrusted(w)
	w.EndObject()
}

// SyncPeer is one of sync_info's peers (COMMAND_RPC_SYNC_INFO::peer).
type SyncPeer struct {
	Info ConnectionInfo `json:"info"`
}

// SyncSpan is one of sync_info's spans (COMMAND_RPC_SYNC_INFO::span):
// blocks start_block_height and on, reserved for or received from a
// connection.
type SyncSpan struct {
	ConnectionID     string `json:"connection_id"`
	NBlocks          uint64 `json:"nblocks"`
	Rate             uint32 `json:"rate"`
	RemoteAddress    string `json:"remote_address"`
	Size             uint64 `json:"size"`
	Speed            uint32 `json:"speed"`
	StartBlockHeight uint64 `json:"start_block_height"`
}

// SyncInfoResponse is sync_info's answer
// (COMMAND_RPC_SYNC_INFO::response); its status is always OK.
type SyncInfoResponse struct {
	Height                uint64     `json:"height"`
	NextNeededPruningSeed uint32     `json:"next_needed_pruning_seed"`
	Overview              string     `json:"overview"`
	Peers                 []SyncPeer `json:"peers"` // omitted when empty
	Spans                 []SyncSpan `json:"spans"` // omitted when empty
	TargetHeight          uint64     `json:"target_height"`
}

// Write writes the answer.
func (r *SyncInfoResponse) Write(w *epeejson.Writer) {
	w.BeginObject()
	WriteCredits(w)
	w.KeyUint("height", r.Height)
	w.KeyUint("next_needed_pruning_seed", uint64(r.NextNeededPruningSeed))
	w.KeyString("overview", r.Overview)
	WriteList(w, "peers", r.Peers, func(p *SyncPeer, w *epeejson.Writer) {
		w.BeginObject()
		w.Key("info")
		p.Info.Write(w)
		w.EndObject()
	})
	WriteList(w, "spans", r.Spans, func(sp *SyncSpan, w *epeejson.Writer) {
		w.BeginObject()
		w.KeyString("connection_id", sp.ConnectionID)
		w.KeyUint("nblocks", sp.NBlocks)
		w.KeyUint("rate", uint64(sp.Rate))
		w.KeyString("remote_address", sp.RemoteAddress)
		w.KeyUint("size", sp.Size)
		w.KeyUint("speed", uint64(sp.Speed))
		w.KeyUint("start_block_height", sp.StartBlockHeight)
		w.EndObject()
	})
	w.KeyString("status", StatusOK)
	w.KeyUint("target_height", r.TargetHeight)
	w.KeyString("top_hash", "")
	WriteUntrusted(w)
	w.EndObject()
}

// BanInfo is one of get_bans' bans (COMMAND_RPC_GETBANS::ban): a host or
// an IPv4 subnet ("a.b.c.d/n"), ip the IPv4 host as epee holds it (0
// otherwise), and the seconds left.
type BanInfo struct {
	Host    string `json:"host"`
	IP      uint32 `json:"ip"`
	Seconds uint32 `json:"seconds"`
}

// GetBansResponse is get_bans' answer (COMMAND_RPC_GETBANS::response); its
// status is always OK.
type GetBansResponse struct {
	Bans []BanInfo `json:"bans"` // omitted when empty
}

// Write writes the answer.
func (r *GetBansResponse) Write(w *epeejson.Writer) {
	w.BeginObject()
	WriteList(w, "bans", r.Bans, func(b *BanInfo, w *epeejson.Writer) {
		w.BeginObject()
		w.KeyString("host", b.Host)
		w.KeyUint("ip", uint64(b.IP))
		w.KeyUint("seconds", uint64(b.Seconds))
		w.EndObject()
	})
	w.KeyString("status", StatusOK)
	WriteUntrusted(w)
	w.EndObject()
}

// SetBan is one entry of set_bans' request (COMMAND_RPC_SETBANS::ban).
type SetBan struct {
	Host    string `json:"host"`
	IP      uint32 `json:"ip"`
	Ban     bool   `json:"ban"`
	Seconds uint32 `json:"seconds"`
}

// SetBansRequest is set_bans' request (COMMAND_RPC_SETBANS::request).
type SetBansRequest struct {
	Bans []SetBan `json:"bans"`
}

// ParseSetBansRequest loads it from params: ip and seconds are uint32_t.
func ParseSetBansRequest(p Params) (SetBansRequest, *Error) {
	var out SetBansRequest
	for _, b := range p.Objects("bans") {
		var e SetBan
		var err *Error
		if e.Host, err = b.String("host"); err != nil {
			return SetBansRequest{}, err
		}
		ip, err := b.Unsigned("ip", 0, math.MaxUint32)
		if err != nil {
			return SetBansRequest{}, err
		}
		if e.Ban, err = b.Bool("ban"); err != nil {
			return SetBansRequest{}, err
		}
		secs, err := b.Unsigned("seconds", 0, math.MaxUint32)
		if err != nil {
			return SetBansRequest{}, err
		}
		e.IP, e.Seconds = uint32(ip), uint32(secs)
		out.Bans = append(out.Bans, e)
	}
	return out, nil
}

// IPv4FromEpee is an IPv4 address as epee holds it: a uint32 in network
// byte order, stored little-endian (1.2.3.4 is 0x04030201).
func IPv4FromEpee(ip uint32) netip.Addr {
	return netip.AddrFrom4([4]byte{byte(ip), byte(ip >> 8), byte(ip >> 16), byte(ip >> 24)})
}

// IPv4ToEpee is IPv4FromEpee's inverse.
func IPv4ToEpee(a netip.Addr) uint32 {
	b := a.Unmap().As4()
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// GetNetStatsResponse is /get_net_stats' answer
// (COMMAND_RPC_GET_NET_STATS::response); its status is always OK.
type GetNetStatsResponse struct {
	StartTime       uint64 `json:"start_time"`
	TotalBytesIn    uint64 `json:"total_bytes_in"`
	TotalBytesOut   uint64 `json:"total_bytes_out"`
	TotalPacketsIn  uint64 `json:"total_packets_in"`
	TotalPacketsOut uint64 `json:"total_packets_out"`
}

// Write writes the answer.
func (r *GetNetStatsResponse) Write(w *epeejson.Writer) {
	w.BeginObject()
	w.KeyUint("start_time", r.StartTime)
	w.KeyString("status", StatusOK)
	w.KeyUint("total_bytes_in", r.TotalBytesIn)
	w.KeyUint("total_bytes_out", r.TotalBytesOut)
	w.KeyUint("total_packets_in", r.TotalPacketsIn)
	w.KeyUint("total_packets_out", r.TotalPacketsOut)
	WriteUntrusted(w)
	w.EndObject()
}

// GetLimitResponse is /get_limit's and /set_limit's answer
// (COMMAND_RPC_GET_LIMIT::response, COMMAND_RPC_SET_LIMIT::response): the
// P2P rate limits in kB/s.
type GetLimitResponse struct {
	LimitDown int64  `json:"limit_down"`
	LimitUp   int64  `json:"limit_up"`
	Status    string `json:"status"`
}

// Write writes the answer.
func (r *GetLimitResponse) Write(w *epeejson.Writer) {
	w.BeginObject()
	w.Key("limit_down")
	w.Int(r.LimitDown)
	w.Key("limit_up")
	w.Int(r.LimitUp)
	w.KeyString("status", r.Status)
	WriteUntrusted(w)
	w.EndObject()
}

// WritePeer writes one get_peer_list entry (struct peer,
// core_rpc_server_commands_defs.h): rpc_port, rpc_credits_per_hash and
// pruning_seed are KV_SERIALIZE_OPT, which epee leaves out when they hold
// their default (0). A Tor or I2P entry shows monerod's str() as host, no
// ip or port.
func WritePeer(e *peerinfo.PeerEntry, w *epeejson.Writer) {
	a := e.Addr.Addr().Unmap()
	var ip uint64
	host, port := a.String(), uint64(e.Addr.Port())
	if a.Is4() {
		ip = uint64(IPv4ToEpee(a))
	}
	if e.Host != "" {
		host, port = e.Host, 0
	}
	w.BeginObject()
	w.KeyString("host", host)
	w.KeyUint("id", e.ID)
	w.KeyUint("ip", ip)
	w.KeyUint("last_seen", uint64(e.LastSeen))
	w.KeyUint("port", port)
	if e.PruningSeed != 0 {
		w.KeyUint("pruning_seed", uint64(e.PruningSeed))
	}
	if e.RPCCreditsPerHash != 0 {
		w.KeyUint("rpc_credits_per_hash", uint64(e.RPCCreditsPerHash))
	}
	if e.RPCPort != 0 {
		w.KeyUint("rpc_port", uint64(e.RPCPort))
	}
	w.EndObject()
}

// WritePublicNode writes one get_public_nodes entry (struct public_node,
// core_rpc_server_commands_defs.h).
func WritePublicNode(e *peerinfo.PeerEntry, w *epeejson.Writer) {
	w.BeginObject()
	w.KeyString("host", e.Addr.Addr().Unmap().String())
	w.KeyUint("last_seen", uint64(e.LastSeen))
	w.KeyUint("rpc_credits_per_hash", uint64(e.RPCCreditsPerHash))
	w.KeyUint("rpc_port", uint64(e.RPCPort))
	w.EndObject()
}

// WriteList writes a non-empty array under name (epee omits empty ones).
func WriteList[T any](w *epeejson.Writer, name string, list []T, write func(*T, *epeejson.Writer)) {
	if len(list) == 0 {
		return
	}
	w.Key(name)
	w.BeginArray()
	for i := range list {
		write(&list[i], w)
	}
	w.EndArray()
}

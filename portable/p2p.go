package portable

import (
	"encoding/binary"
	"math"
	"net/netip"
	"strconv"
)

// The P2P types of docs/p2p-levin.md §4 and the payloads of the admin
// commands of docs/p2p-levin.md §5, with monerod's field names.
//
// ToSection writes what monerod's KV_SERIALIZE maps write (keyvalue_
// serialization*.h, docs/p2p-levin.md §3.5): entries sorted by name, each field with its exact
// C++ type code, empty arrays and KV_SERIALIZE_OPT fields equal to their
// default (0 for every field here) omitted, plain KV_SERIALIZE scalars always
// present.
//
// FromSection loads the way monerod does: unknown entries are ignored, a
// missing field keeps its zero value, an integer of any width is accepted
// if it fits, a STRING of digits is accepted for a uint64 field; a value the
// converters reject (wrong type, out of range) fails the whole message with
// a *FieldError; a blob of the wrong length (KV_SERIALIZE_VAL_POD_AS_BLOB) is
// ignored; an entry that should be an object or an array of objects but is
// something else is ignored (open_section finds no section). Invalid network
// addresses are errors (see NetAddress).

// SupportFlagFluffyBlocks is P2P_SUPPORT_FLAG_FLUFFY_BLOCKS, the only
// support flag; monerod sends it in the public zone.
const SupportFlagFluffyBlocks uint32 = 1

// PingStatusOK is PING_OK_RESPONSE_STATUS_TEXT, the status of a successful
// ping response.
const PingStatusOK = "OK"

// AddressType is network_address's type id (address_type in
// net_utils_base.h).
type AddressType uint8

// Address types; 0 is invalid.
const (
	AddressIPv4 AddressType = 1
	AddressIPv6 AddressType = 2
	AddressI2P  AddressType = 3
	AddressTor  AddressType = 4
)

// NetAddress is epee::net_utils::network_address (docs/p2p-levin.md §4.1): an object with a
// uint8 "type" and an "addr" object whose entries depend on the type.
type NetAddress struct {
	Type AddressType
	IP   netip.Addr // IPv4 (m_ip) and IPv6 (addr)
	Port uint16     // m_port (IPv4, IPv6) or port (Tor, I2P)
	Host string     // Tor "<56 base32>.onion", I2P "<52>.b32.i2p"; not validated here
}

// String gives monerod's text form: a.b.c.d:port, [v6]:port, host.onion:port
// (no port when 0) and host.b32.i2p.
func (a NetAddress) String() string {
	port := strconv.Itoa(int(a.Port))
	switch a.Type {
	case AddressIPv4:
		return a.ipv4().String() + ":" + port
	case AddressIPv6:
		return "[" + netip.AddrFrom16(a.IP.As16()).String() + "]:" + port
	case AddressTor:
		if a.Port == 0 {
			return a.Host
		}
		return a.Host + ":" + port
	case AddressI2P:
		return a.Host
	}
	return "<invalid address>"
}

// ipv4 returns the IPv4 address (0.0.0.0 when IP is not one).
func (a NetAddress) ipv4() netip.Addr {
	ip := a.IP.Unmap()
	if !ip.Is4() {
		return netip.AddrFrom4([4]byte{})
	}
	return ip
}

// ToSection writes the address. m_ip is the address in network byte order
// as it sits in memory, i.e. the little-endian uint32 whose bytes are the
// octets: 1.2.3.4 is 0x04030201. A zero or unknown Type is written as a
// lone "type" entry, which monerod (and FromSection) rejects.
func (a NetAddress) ToSection() Section {
	var addr Section
	switch a.Type {
	case AddressIPv4:
		ip := a.ipv4().As4()
		addr.Entries = []Entry{
			{"m_ip", NewUint32(binary.LittleEndian.Uint32(ip[:]))},
			{"m_port", NewUint16(a.Port)},
		}
	case AddressIPv6:
		ip := a.IP.As16()
		addr.Entries = []Entry{
			{"addr", NewBlob(ip[:])},
			{"m_port", NewUint16(a.Port)},
		}
	case AddressTor, AddressI2P:
		addr.Entries = []Entry{
			{"host", NewString(a.Host)},
			{"port", NewUint16(a.Port)},
		}
	default:
		return Section{Entries: []Entry{{"type", NewUint8(uint8(a.Type))}}}
	}
	return Section{Entries: []Entry{
		{"addr", NewObject(addr)},
		{"type", NewUint8(uint8(a.Type))},
	}}
}

// FromSection loads an address. A missing or unknown type, or a missing
// "addr" object, is ErrBadAddress: monerod's loader fails for those
// ("Unsupported network address type") and leaves an unusable address.
func (a *NetAddress) FromSection(s Section) error {
	*a = NetAddress{}
	t, err := loadUint(s, "type", math.MaxUint8)
	if err != nil {
		return err
	}
	if t < uint64(AddressIPv4) || t > uint64(AddressTor) {
		return &FieldError{Path: "type", Err: ErrBadAddress}
	}
	addr, ok := loadObject(s, "addr")
	if !ok {
		return &FieldError{Path: "addr", Err: ErrBadAddress}
	}
	a.Type = AddressType(t)
	var port uint64
	switch a.Type {
	case AddressIPv4:
		ip, err := loadUint(addr, "m_ip", math.MaxUint32)
		if err != nil {
			return withPath(err, "addr")
		}
		var b [4]byte
		binary.LittleEndian.PutUint32(b[:], uint32(ip))
		a.IP = netip.AddrFrom4(b)
		port, err = loadUint(addr, "m_port", math.MaxUint16)
		if err != nil {
			return withPath(err, "addr")
		}
	case AddressIPv6:
		ip, err := loadBlob(addr, "addr", 16)
		if err != nil {
			return withPath(err, "addr")
		}
		var b [16]byte
		copy(b[:], ip) // wrong length: ignored, the address stays ::
		a.IP = netip.AddrFrom16(b)
		if port, err = loadUint(addr, "m_port", math.MaxUint16); err != nil {
			return withPath(err, "addr")
		}
	default:
		if a.Host, err = loadString(addr, "host"); err != nil {
			return withPath(err, "addr")
		}
		if port, err = loadUint(addr, "port", math.MaxUint16); err != nil {
			return withPath(err, "addr")
		}
	}
	a.Port = uint16(port)
	return nil
}

// PeerlistEntry is peerlist_entry (docs/p2p-levin.md §4.2), the element of local_peerlist_new.
type PeerlistEntry struct {
	Address           NetAddress // adr
	ID                uint64     // id
	LastSeen          int64      // last_seen; monerod zeroes it in every list it sends
	PruningSeed       uint32     // pruning_seed
	RPCPort           uint16     // rpc_port
	RPCCreditsPerHash uint32     // rpc_credits_per_hash
}

// ToSection writes adr and id always, the other fields when non-zero.
func (p PeerlistEntry) ToSection() Section {
	e := make([]Entry, 0, 6)
	e = append(e, Entry{"adr", NewObject(p.Address.ToSection())}, Entry{"id", NewUint64(p.ID)})
	if p.LastSeen != 0 {
		e = append(e, Entry{"last_seen", NewInt64(p.LastSeen)})
	}
	if p.PruningSeed != 0 {
		e = append(e, Entry{"pruning_seed", NewUint32(p.PruningSeed)})
	}
	if p.RPCCreditsPerHash != 0 {
		e = append(e, Entry{"rpc_credits_per_hash", NewUint32(p.RPCCreditsPerHash)})
	}
	if p.RPCPort != 0 {
		e = append(e, Entry{"rpc_port", NewUint16(p.RPCPort)})
	}
	return Section{Entries: e}
}

// FromSection loads a peer list entry; a missing or invalid adr is an error.
func (p *PeerlistEntry) FromSection(s Section) error {
	*p = PeerlistEntry{}
	adr, ok := loadObject(s, "adr")
	if !ok {
		return &FieldError{Path: "adr", Err: ErrBadAddress}
	}
	if err := p.Address.FromSection(adr); err != nil {
		return withPath(err, "adr")
	}
	var err error
	if p.ID, err = loadUint(s, "id", math.MaxUint64); err != nil {
		return err
	}
	if p.LastSeen, err = loadInt64(s, "last_seen"); err != nil {
		return err
	}
	var n uint64
	if n, err = loadUint(s, "pruning_seed", math.MaxUint32); err != nil {
		return err
	}
	p.PruningSeed = uint32(n)
	if n, err = loadUint(s, "rpc_port", math.MaxUint16); err != nil {
		return err
	}
	p.RPCPort = uint16(n)
	if n, err = loadUint(s, "rpc_credits_per_hash", math.MaxUint32); err != nil {
		return err
	}
	p.RPCCreditsPerHash = uint32(n)
	return nil
}

// NodeData is basic_node_data, the node_data object of a handshake (docs/p2p-levin.md §4.3).
type NodeData struct {
	NetworkID         [16]byte // network_id, a UUID sent as its 16 raw bytes
	MyPort            uint32   // my_port; 0 = do not ping me back
	PeerID            uint64   // peer_id
	RPCPort           uint16   // rpc_port
	RPCCreditsPerHash uint32   // rpc_credits_per_hash
	SupportFlags      uint32   // support_flags
}

// ToSection writes network_id, my_port and peer_id always, the rest when
// non-zero.
func (n NodeData) ToSection() Section {
	e := make([]Entry, 0, 6)
	e = append(e,
		Entry{"my_port", NewUint32(n.MyPort)},
		Entry{"network_id", NewBlob(n.NetworkID[:])},
		Entry{"peer_id", NewUint64(n.PeerID)})
	if n.RPCCreditsPerHash != 0 {
		e = append(e, Entry{"rpc_credits_per_hash", NewUint32(n.RPCCreditsPerHash)})
	}
	if n.RPCPort != 0 {
		e = append(e, Entry{"rpc_port", NewUint16(n.RPCPort)})
	}
	if n.SupportFlags != 0 {
		e = append(e, Entry{"support_flags", NewUint32(n.SupportFlags)})
	}
	return Section{Entries: e}
}

// FromSection loads node data. A network_id that is not 16 bytes long is
// ignored (stays zero), as KV_SERIALIZE_VAL_POD_AS_BLOB does.
func (n *NodeData) FromSection(s Section) error {
	*n = NodeData{}
	id, err := loadBlob(s, "network_id", len(n.NetworkID))
	if err != nil {
		return err
	}
	copy(n.NetworkID[:], id)
	var v uint64
	if v, err = loadUint(s, "my_port", math.MaxUint32); err != nil {
		return err
	}
	n.MyPort = uint32(v)
	if n.PeerID, err = loadUint(s, "peer_id", math.MaxUint64); err != nil {
		return err
	}
	if v, err = loadUint(s, "rpc_port", math.MaxUint16); err != nil {
		return err
	}
	n.RPCPort = uint16(v)
	if v, err = loadUint(s, "rpc_credits_per_hash", math.MaxUint32); err != nil {
		return err
	}
	n.RPCCreditsPerHash = uint32(v)
	if v, err = loadUint(s, "support_flags", math.MaxUint32); err != nil {
		return err
	}
	n.SupportFlags = uint32(v)
	return nil
}

// CoreSyncData is CORE_SYNC_DATA, the payload_data object of handshakes and
// timed syncs (docs/p2p-levin.md §4.4).
type CoreSyncData struct {
	CurrentHeight             uint64   // current_height: top block height + 1
	CumulativeDifficulty      uint64   // cumulative_difficulty: low 64 bits
	CumulativeDifficultyTop64 uint64   // cumulative_difficulty_top64: high 64 bits
	TopID                     [32]byte // top_id
	TopVersion                uint8    // top_version: the ideal hard-fork version at the top height
	PruningSeed               uint32   // pruning_seed
}

// ToSection writes everything but top_version and pruning_seed when they
// are 0; cumulative_difficulty_top64 is written even when 0, as monerod does.
func (c CoreSyncData) ToSection() Section {
	e := make([]Entry, 0, 6)
	e = append(e,
		Entry{"cumulative_difficulty", NewUint64(c.CumulativeDifficulty)},
		Entry{"cumulative_difficulty_top64", NewUint64(c.CumulativeDifficultyTop64)},
		Entry{"current_height", NewUint64(c.CurrentHeight)})
	if c.PruningSeed != 0 {
		e = append(e, Entry{"pruning_seed", NewUint32(c.PruningSeed)})
	}
	e = append(e, Entry{"top_id", NewBlob(c.TopID[:])})
	if c.TopVersion != 0 {
		e = append(e, Entry{"top_version", NewUint8(c.TopVersion)})
	}
	return Section{Entries: e}
}

// FromSection loads sync data. A top_id that is not 32 bytes is ignored.
func (c *CoreSyncData) FromSection(s Section) error {
	*c = CoreSyncData{}
	var err error
	if c.CurrentHeight, err = loadUint(s, "current_height", math.MaxUint64); err != nil {
		return err
	}
	if c.CumulativeDifficulty, err = loadUint(s, "cumulative_difficulty", math.MaxUint64); err != nil {
		return err
	}
	if c.CumulativeDifficultyTop64, err = loadUint(s, "cumulative_difficulty_top64", math.MaxUint64); err != nil {
		return err
	}
	id, err := loadBlob(s, "top_id", len(c.TopID))
	if err != nil {
		return err
	}
	copy(c.TopID[:], id)
	var v uint64
	if v, err = loadUint(s, "top_version", math.MaxUint8); err != nil {
		return err
	}
	c.TopVersion = uint8(v)
	if v, err = loadUint(s, "pruning_seed", math.MaxUint32); err != nil {
		return err
	}
	c.PruningSeed = uint32(v)
	return nil
}

// HandshakeRequest is COMMAND_HANDSHAKE (1001) request.
type HandshakeRequest struct {
	NodeData    NodeData     // node_data
	PayloadData CoreSyncData // payload_data
}

func (m HandshakeRequest) ToSection() Section {
	return Section{Entries: []Entry{
		{"node_data", NewObject(m.NodeData.ToSection())},
		{"payload_data", NewObject(m.PayloadData.ToSection())},
	}}
}

func (m *HandshakeRequest) FromSection(s Section) error {
	*m = HandshakeRequest{}
	if err := loadNested(s, "node_data", &m.NodeData); err != nil {
		return err
	}
	return loadNested(s, "payload_data", &m.PayloadData)
}

// HandshakeResponse is COMMAND_HANDSHAKE (1001) response. The responder
// sends at most 250 (P2P_MAX_PEERS_IN_HANDSHAKE) peers; checking that is
// the P2P layer's job.
type HandshakeResponse struct {
	NodeData      NodeData        // node_data
	PayloadData   CoreSyncData    // payload_data
	LocalPeerlist []PeerlistEntry // local_peerlist_new, omitted when empty
}

func (m HandshakeResponse) ToSection() Section {
	e := make([]Entry, 0, 3)
	if len(m.LocalPeerlist) > 0 {
		e = append(e, Entry{"local_peerlist_new", peerlistValue(m.LocalPeerlist)})
	}
	e = append(e,
		Entry{"node_data", NewObject(m.NodeData.ToSection())},
		Entry{"payload_data", NewObject(m.PayloadData.ToSection())})
	return Section{Entries: e}
}

func (m *HandshakeResponse) FromSection(s Section) error {
	*m = HandshakeResponse{}
	if err := loadNested(s, "node_data", &m.NodeData); err != nil {
		return err
	}
	if err := loadNested(s, "payload_data", &m.PayloadData); err != nil {
		return err
	}
	var err error
	m.LocalPeerlist, err = loadPeerlist(s)
	return err
}

// TimedSyncRequest is COMMAND_TIMED_SYNC (1002) request.
type TimedSyncRequest struct {
	PayloadData CoreSyncData // payload_data
}

func (m TimedSyncRequest) ToSection() Section {
	return Section{Entries: []Entry{{"payload_data", NewObject(m.PayloadData.ToSection())}}}
}

func (m *TimedSyncRequest) FromSection(s Section) error {
	*m = TimedSyncRequest{}
	return loadNested(s, "payload_data", &m.PayloadData)
}

// TimedSyncResponse is COMMAND_TIMED_SYNC (1002) response.
type TimedSyncResponse struct {
	PayloadData   CoreSyncData    // payload_data
	LocalPeerlist []PeerlistEntry // local_peerlist_new, omitted when empty
}

func (m TimedSyncResponse) ToSection() Section {
	e := make([]Entry, 0, 2)
	if len(m.LocalPeerlist) > 0 {
		e = append(e, Entry{"local_peerlist_new", peerlistValue(m.LocalPeerlist)})
	}
	e = append(e, Entry{"payload_data", NewObject(m.PayloadData.ToSection())})
	return Section{Entries: e}
}

func (m *TimedSyncResponse) FromSection(s Section) error {
	*m = TimedSyncResponse{}
	if err := loadNested(s, "payload_data", &m.PayloadData); err != nil {
		return err
	}
	var err error
	m.LocalPeerlist, err = loadPeerlist(s)
	return err
}

// PingRequest is COMMAND_PING (1003) request: an empty object.
type PingRequest struct{}

func (PingRequest) ToSection() Section         { return Section{} }
func (*PingRequest) FromSection(Section) error { return nil }

// PingResponse is COMMAND_PING (1003) response.
type PingResponse struct {
	Status string // status: PingStatusOK
	PeerID uint64 // peer_id: the responder's peer ID for the zone
}

func (m PingResponse) ToSection() Section {
	return Section{Entries: []Entry{
		{"peer_id", NewUint64(m.PeerID)},
		{"status", NewString(m.Status)},
	}}
}

func (m *PingResponse) FromSection(s Section) error {
	*m = PingResponse{}
	var err error
	if m.Status, err = loadString(s, "status"); err != nil {
		return err
	}
	m.PeerID, err = loadUint(s, "peer_id", math.MaxUint64)
	return err
}

// SupportFlagsRequest is COMMAND_REQUEST_SUPPORT_FLAGS (1007) request: an
// empty object.
type SupportFlagsRequest struct{}

func (SupportFlagsRequest) ToSection() Section         { return Section{} }
func (*SupportFlagsRequest) FromSection(Section) error { return nil }

// SupportFlagsResponse is COMMAND_REQUEST_SUPPORT_FLAGS (1007) response.
type SupportFlagsResponse struct {
	SupportFlags uint32 // support_flags
}

func (m SupportFlagsResponse) ToSection() Section {
	return Section{Entries: []Entry{{"support_flags", NewUint32(m.SupportFlags)}}}
}

func (m *SupportFlagsResponse) FromSection(s Section) error {
	v, err := loadUint(s, "support_flags", math.MaxUint32)
	m.SupportFlags = uint32(v)
	return err
}

// Marshal encodes a P2P payload as a levin body.
func Marshal(p interface{ ToSection() Section }) ([]byte, error) {
	return Encode(p.ToSection())
}

// Unmarshal decodes a levin body (with P2PLimits) into a P2P payload.
func Unmarshal(data []byte, p interface{ FromSection(Section) error }) error {
	s, err := Decode(data)
	if err != nil {
		return err
	}
	return p.FromSection(s)
}

func peerlistValue(peers []PeerlistEntry) Value {
	arr := make([]Value, len(peers))
	for i := range peers {
		arr[i] = NewObject(peers[i].ToSection())
	}
	return Value{Type: ArrayFlag | TypeObject, Array: arr}
}

// loadPeerlist loads local_peerlist_new; anything but an array of objects
// is ignored, as get_first_section finds no section in it.
func loadPeerlist(s Section) ([]PeerlistEntry, error) {
	v, ok := s.Get("local_peerlist_new")
	if !ok || v.Type != ArrayFlag|TypeObject || len(v.Array) == 0 {
		return nil, nil
	}
	peers := make([]PeerlistEntry, len(v.Array))
	for i := range v.Array {
		if err := peers[i].FromSection(v.Array[i].Object); err != nil {
			return nil, withPath(withPath(err, "["+strconv.Itoa(i)+"]"), "local_peerlist_new")
		}
	}
	return peers, nil
}

// loadNested loads an object field; a missing or non-object entry leaves
// the zero value.
func loadNested(s Section, name string, into interface{ FromSection(Section) error }) error {
	sec, _ := loadObject(s, name)
	if err := into.FromSection(sec); err != nil {
		return withPath(err, name)
	}
	return nil
}

func loadObject(s Section, name string) (Section, bool) {
	v, ok := s.Get(name)
	if !ok || v.Type != TypeObject {
		return Section{}, false
	}
	return v.Object, true
}

// loadUint loads an unsigned field: absent is 0 (KV_SERIALIZE keeps the
// zero value; KV_SERIALIZE_OPT sets its default, 0 for every field here).
func loadUint(s Section, name string, max uint64) (uint64, error) {
	v, ok := s.Get(name)
	if !ok {
		return 0, nil
	}
	n, err := asUint(v, max)
	if err != nil {
		return 0, &FieldError{Path: name, Err: err}
	}
	return n, nil
}

func loadInt64(s Section, name string) (int64, error) {
	v, ok := s.Get(name)
	if !ok {
		return 0, nil
	}
	n, err := asInt(v, math.MinInt64, math.MaxInt64)
	if err != nil {
		return 0, &FieldError{Path: name, Err: err}
	}
	return n, nil
}

func loadString(s Section, name string) (string, error) {
	v, ok := s.Get(name)
	if !ok {
		return "", nil
	}
	if v.Type != TypeString {
		return "", &FieldError{Path: name, Err: ErrWrongType}
	}
	return string(v.Bytes), nil
}

// loadBlob loads a KV_SERIALIZE_VAL_POD_AS_BLOB field of size bytes: nil
// when absent or of another length (ignored by monerod), an error when the
// entry is not a string (the string converter throws).
func loadBlob(s Section, name string, size int) ([]byte, error) {
	v, ok := s.Get(name)
	if !ok {
		return nil, nil
	}
	if v.Type != TypeString {
		return nil, &FieldError{Path: name, Err: ErrWrongType}
	}
	if len(v.Bytes) != size {
		return nil, nil
	}
	return v.Bytes, nil
}

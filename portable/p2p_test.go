package portable

import (
	"bytes"
	"errors"
	"fmt"
	"net/netip"
	"reflect"
	"testing"
)

// pingResponseBody is monerod's ping answer of docs/p2p-levin.md §2.7
// (observed).
func pingResponseBody(t testing.TB) []byte {
	return docHex(t, `
		01 11 01 01 01 01 02 01 01     # storage header
		08                             # varint 2 entries
		07 "peer_id"  05  37 05 d3 c9 3d 7d 6b 1f
		06 "status"   0a  08 "O" "K"`)
}

// handshakeExample is the 262-byte handshake request body of docs/p2p-levin.md §5.1, accepted
// by monerod, whose own response had the identical structure (observed).
func handshakeExample(t testing.TB) []byte {
	return docHex(t, `
		01 11 01 01 01 01 02 01 01                          # storage header
		08                                                  # root: 2 entries
		09 "node_data" 0c                                   # OBJECT
		  10                                                # 4 entries (sorted)
		  07 "my_port" 06 a0 46 00 00                       # UINT32 18080
		  0a "network_id" 0a 40 12 30 f1 71 61 04 41 61 17 31 00 82 16 a1 a1 10
		  07 "peer_id" 05 88 77 66 55 44 33 22 11           # UINT64
		  0d "support_flags" 06 01 00 00 00                 # UINT32 1
		0c "payload_data" 0c                                # OBJECT
		  14                                                # 5 entries (sorted)
		  15 "cumulative_difficulty" 05 01 00 00 00 00 00 00 00
		  1b "cumulative_difficulty_top64" 05 00 00 00 00 00 00 00 00
		  0e "current_height" 05 01 00 00 00 00 00 00 00
		  06 "top_id" 0a 80 41 80 15 bb 9a e9 82 a1 97 5d a7 d7 92 77 c2 70 57 27 a5 68 94 ba 0f b2 46 ad aa bb 1f 46 32 e3
		  0b "top_version" 08 01                            # UINT8 1`)
}

var mainnetNetworkID = [16]byte{0x12, 0x30, 0xf1, 0x71, 0x61, 0x04, 0x41, 0x61, 0x17, 0x31, 0x00, 0x82, 0x16, 0xa1, 0xa1, 0x10}

// mainnetGenesis is the mainnet genesis block id.
var mainnetGenesis = [32]byte{0x41, 0x80, 0x15, 0xbb, 0x9a, 0xe9, 0x82, 0xa1, 0x97, 0x5d, 0xa7, 0xd7, 0x92, 0x77, 0xc2, 0x70,
	0x57, 0x27, 0xa5, 0x68, 0x94, 0xba, 0x0f, 0xb2, 0x46, 0xad, 0xaa, 0xbb, 0x1f, 0x46, 0x32, 0xe3}

func TestPingExamples(t *testing.T) {
	body := pingResponseBody(t)
	if len(body) != 38 {
		t.Fatalf("doc body is %d bytes, the doc says 38", len(body))
	}
	var resp PingResponse
	if err := Unmarshal(body, &resp); err != nil {
		t.Fatal(err)
	}
	if want := (PingResponse{Status: PingStatusOK, PeerID: 0x1f6b7d3dc9d30537}); resp != want {
		t.Fatalf("%+v, want %+v", resp, want)
	}
	again, err := Marshal(resp)
	if err != nil || !bytes.Equal(again, body) {
		t.Fatalf("re-encoded % x, %v", again, err)
	}
	s, err := Decode(body)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := Encode(s); !bytes.Equal(again, body) {
		t.Fatal("generic re-encoding differs")
	}
	// The request body of docs/p2p-levin.md §2.7 is an empty object, as is 1007's.
	for _, p := range []interface{ ToSection() Section }{PingRequest{}, SupportFlagsRequest{}} {
		if b, err := Marshal(p); err != nil || !bytes.Equal(b, docHex(t, header+" 00")) {
			t.Errorf("%T: % x %v", p, b, err)
		}
	}
	if err := Unmarshal(docHex(t, header+" 00"), &PingRequest{}); err != nil {
		t.Error(err)
	}
}

func TestHandshakeExample(t *testing.T) {
	body := handshakeExample(t)
	if len(body) != 262 {
		t.Fatalf("doc body is %d bytes, the doc says 262", len(body))
	}
	want := HandshakeRequest{
		NodeData:    NodeData{NetworkID: mainnetNetworkID, MyPort: 18080, PeerID: 0x1122334455667788, SupportFlags: SupportFlagFluffyBlocks},
		PayloadData: CoreSyncData{CurrentHeight: 1, CumulativeDifficulty: 1, TopID: mainnetGenesis, TopVersion: 1},
	}
	var got HandshakeRequest
	if err := Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("decoded %+v\nwant %+v", got, want)
	}
	enc, err := Marshal(want)
	if err != nil || !bytes.Equal(enc, body) {
		t.Fatalf("encoded\n% x\nwant\n% x\n%v", enc, body, err)
	}
	// monerod's answer had the same structure: a response without peers
	// encodes identically.
	resp := HandshakeResponse{NodeData: want.NodeData, PayloadData: want.PayloadData}
	if enc, _ := Marshal(resp); !bytes.Equal(enc, body) {
		t.Fatal("response without peers differs")
	}
	var back HandshakeResponse
	if err := Unmarshal(body, &back); err != nil || !reflect.DeepEqual(back, resp) {
		t.Fatalf("%+v %v", back, err)
	}
}

func TestNetAddress(t *testing.T) {
	cases := []struct {
		a    NetAddress
		text string
		wire string // the addr object's entries
	}{
		{NetAddress{Type: AddressIPv4, IP: netip.MustParseAddr("1.2.3.4"), Port: 18080}, "1.2.3.4:18080",
			`08 04 "m_ip" 06 01 02 03 04 06 "m_port" 07 a0 46`},
		{NetAddress{Type: AddressIPv6, IP: netip.MustParseAddr("2001:db8::1"), Port: 18080}, "[2001:db8::1]:18080",
			`08 04 "addr" 0a 40 20 01 0d b8 00 00 00 00 00 00 00 00 00 00 00 01 06 "m_port" 07 a0 46`},
		{NetAddress{Type: AddressIPv6, IP: netip.MustParseAddr("::ffff:1.2.3.4"), Port: 1}, "[::ffff:1.2.3.4]:1",
			`08 04 "addr" 0a 40 00 00 00 00 00 00 00 00 00 00 ff ff 01 02 03 04 06 "m_port" 07 01 00`},
		{NetAddress{Type: AddressTor, Host: "abc.onion", Port: 18083}, "abc.onion:18083",
			`08 04 "host" 0a 24 "abc.onion" 04 "port" 07 a3 46`},
		{NetAddress{Type: AddressTor, Host: "abc.onion"}, "abc.onion",
			`08 04 "host" 0a 24 "abc.onion" 04 "port" 07 00 00`},
		{NetAddress{Type: AddressI2P, Host: "x.b32.i2p", Port: 1}, "x.b32.i2p",
			`08 04 "host" 0a 24 "x.b32.i2p" 04 "port" 07 01 00`},
	}
	for _, c := range cases {
		blob, err := Encode(c.a.ToSection())
		if err != nil {
			t.Fatal(err)
		}
		want := docHex(t, header+` 08 04 "addr" 0c `+c.wire+fmt.Sprintf(` 04 "type" 08 %02x`, c.a.Type))
		if !bytes.Equal(blob, want) {
			t.Errorf("%s:\n% x\nwant\n% x", c.text, blob, want)
		}
		var back NetAddress
		if err := Unmarshal(blob, &back); err != nil || back != c.a {
			t.Errorf("%s: back %+v %v", c.text, back, err)
		}
		if got := c.a.String(); got != c.text {
			t.Errorf("String() = %s, want %s", got, c.text)
		}
	}
	// An IPv4 address given as IPv4-in-IPv6 is written as IPv4.
	a := NetAddress{Type: AddressIPv4, IP: netip.MustParseAddr("::ffff:10.0.0.1"), Port: 5}
	if m, _ := a.ToSection().Entries[0].Value.Object.GetUint32("m_ip"); m != 0x0100000a {
		t.Errorf("m_ip %#x", m)
	}
	bad := []Section{
		{},
		{Entries: []Entry{{"type", NewUint8(0)}}},
		{Entries: []Entry{{"type", NewUint8(5)}, {"addr", NewObject(Section{})}}},
		{Entries: []Entry{{"type", NewUint8(1)}}},
		{Entries: []Entry{{"type", NewUint8(1)}, {"addr", NewUint8(1)}}},
		NetAddress{}.ToSection(),
	}
	for i, s := range bad {
		var a NetAddress
		if err := a.FromSection(s); !errors.Is(err, ErrBadAddress) {
			t.Errorf("bad address %d: %v", i, err)
		}
	}
}

// fullHandshakeResponse has every field set, peers of every address type.
func fullHandshakeResponse(peers int) HandshakeResponse {
	m := HandshakeResponse{
		NodeData: NodeData{NetworkID: mainnetNetworkID, MyPort: 18080, PeerID: 0x0102030405060708,
			RPCPort: 18089, RPCCreditsPerHash: 100, SupportFlags: SupportFlagFluffyBlocks},
		PayloadData: CoreSyncData{CurrentHeight: 3_000_000, CumulativeDifficulty: 0xfedcba9876543210,
			CumulativeDifficultyTop64: 7, TopID: mainnetGenesis, TopVersion: 16, PruningSeed: 0x181},
	}
	for i := range peers {
		p := PeerlistEntry{ID: uint64(i) * 0x9e3779b97f4a7c15}
		switch i % 4 {
		case 0:
			p.Address = NetAddress{Type: AddressIPv4, IP: netip.AddrFrom4([4]byte{byte(i), 2, 3, 4}), Port: 18080}
		case 1:
			p.Address = NetAddress{Type: AddressIPv6, IP: netip.AddrFrom16([16]byte{0x20, 0x01, 15: byte(i)}), Port: 18080}
			p.PruningSeed = 0x180 + uint32(i%8)
		case 2:
			p.Address = NetAddress{Type: AddressTor, Host: "vww6ybal4bd7szmgncyruucpgfkqahzddi37ktceo3ah7ngmcopnpyyd.onion", Port: 18083}
			p.RPCPort, p.RPCCreditsPerHash = 18089, 10
		case 3:
			p.Address = NetAddress{Type: AddressI2P, Host: "ukeu3k5oycgaauneqgtnvselmt4yemvoilkln7jpvamvfx7dnkdq.b32.i2p", Port: 1}
			p.LastSeen = -5
		}
		m.LocalPeerlist = append(m.LocalPeerlist, p)
	}
	return m
}

// isCanonical reports whether every section is sorted as monerod writes.
func isCanonical(s Section) bool {
	for i := range s.Entries {
		if i > 0 && s.Entries[i-1].Name >= s.Entries[i].Name {
			return false
		}
		v := s.Entries[i].Value
		if v.Type == TypeObject && !isCanonical(v.Object) {
			return false
		}
		for _, el := range v.Array {
			if el.Type == TypeObject && !isCanonical(el.Object) {
				return false
			}
		}
	}
	return true
}

type payload interface {
	ToSection() Section
	FromSection(Section) error
}

func TestP2PRoundTrips(t *testing.T) {
	full := fullHandshakeResponse(8)
	cases := []struct {
		in    payload
		fresh func() payload
	}{
		{&full, func() payload { return &HandshakeResponse{} }},
		{&HandshakeResponse{}, func() payload { return &HandshakeResponse{} }},
		{&HandshakeRequest{NodeData: full.NodeData, PayloadData: full.PayloadData}, func() payload { return &HandshakeRequest{} }},
		{&TimedSyncRequest{PayloadData: full.PayloadData}, func() payload { return &TimedSyncRequest{} }},
		{&TimedSyncResponse{PayloadData: full.PayloadData, LocalPeerlist: full.LocalPeerlist}, func() payload { return &TimedSyncResponse{} }},
		{&TimedSyncResponse{}, func() payload { return &TimedSyncResponse{} }},
		{&PingResponse{Status: "OK", PeerID: 1}, func() payload { return &PingResponse{} }},
		{&SupportFlagsResponse{SupportFlags: 1}, func() payload { return &SupportFlagsResponse{} }},
		{&SupportFlagsResponse{}, func() payload { return &SupportFlagsResponse{} }},
		{&PeerlistEntry{Address: full.LocalPeerlist[0].Address, ID: 1, LastSeen: 1, PruningSeed: 2, RPCPort: 3, RPCCreditsPerHash: 4}, func() payload { return &PeerlistEntry{} }},
	}
	for _, c := range cases {
		s := c.in.ToSection()
		if !isCanonical(s) {
			t.Errorf("%T: entries not sorted", c.in)
		}
		blob, err := Marshal(c.in)
		if err != nil {
			t.Fatal(err)
		}
		out := c.fresh()
		if err := Unmarshal(blob, out); err != nil {
			t.Fatalf("%T: %v", c.in, err)
		}
		if !reflect.DeepEqual(out, c.in) {
			t.Errorf("%T round trip:\n got %+v\nwant %+v", c.in, out, c.in)
		}
	}
}

// TestOmittedFields checks the write rules of docs/p2p-levin.md §4.2–§4.4 and §5.
func TestOmittedFields(t *testing.T) {
	names := func(s Section) string {
		var b bytes.Buffer
		for i, e := range s.Entries {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(e.Name)
		}
		return b.String()
	}
	cases := []struct {
		s    Section
		want string
	}{
		{NodeData{}.ToSection(), "my_port network_id peer_id"},
		{fullHandshakeResponse(0).NodeData.ToSection(), "my_port network_id peer_id rpc_credits_per_hash rpc_port support_flags"},
		{CoreSyncData{}.ToSection(), "cumulative_difficulty cumulative_difficulty_top64 current_height top_id"},
		{fullHandshakeResponse(0).PayloadData.ToSection(), "cumulative_difficulty cumulative_difficulty_top64 current_height pruning_seed top_id top_version"},
		{PeerlistEntry{Address: NetAddress{Type: AddressIPv4}}.ToSection(), "adr id"},
		{PeerlistEntry{LastSeen: 1, PruningSeed: 1, RPCPort: 1, RPCCreditsPerHash: 1}.ToSection(), "adr id last_seen pruning_seed rpc_credits_per_hash rpc_port"},
		{HandshakeResponse{}.ToSection(), "node_data payload_data"},
		{fullHandshakeResponse(1).ToSection(), "local_peerlist_new node_data payload_data"},
		{TimedSyncResponse{}.ToSection(), "payload_data"},
		{TimedSyncRequest{}.ToSection(), "payload_data"},
		{PingResponse{}.ToSection(), "peer_id status"},
		{SupportFlagsResponse{}.ToSection(), "support_flags"},
	}
	for _, c := range cases {
		if got := names(c.s); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
	// Exact types: my_port UINT32, rpc_port UINT16, top_version UINT8,
	// last_seen INT64, network_id/top_id STRING.
	types := map[string]Type{}
	var walk func(Section)
	walk = func(s Section) {
		for _, e := range s.Entries {
			types[e.Name] = e.Value.Type
			if e.Value.Type == TypeObject {
				walk(e.Value.Object)
			}
			for _, el := range e.Value.Array {
				walk(el.Object)
			}
		}
	}
	walk(fullHandshakeResponse(4).ToSection())
	walk(PeerlistEntry{LastSeen: 1}.ToSection())
	want := map[string]Type{
		"my_port": TypeUint32, "network_id": TypeString, "peer_id": TypeUint64, "rpc_port": TypeUint16,
		"rpc_credits_per_hash": TypeUint32, "support_flags": TypeUint32, "cumulative_difficulty": TypeUint64,
		"cumulative_difficulty_top64": TypeUint64, "current_height": TypeUint64, "top_id": TypeString,
		"top_version": TypeUint8, "pruning_seed": TypeUint32, "local_peerlist_new": ArrayFlag | TypeObject,
		"adr": TypeObject, "id": TypeUint64, "last_seen": TypeInt64, "type": TypeUint8, "addr": TypeObject,
		"m_ip": TypeUint32, "m_port": TypeUint16, "host": TypeString, "port": TypeUint16,
		"node_data": TypeObject, "payload_data": TypeObject,
	}
	for name, typ := range want {
		if types[name] != typ {
			t.Errorf("%s written as %v, want %v", name, types[name], typ)
		}
	}
	// addr is an object inside network_address but a STRING inside an IPv6
	// addr object; the walk saw both, so check the IPv6 one separately.
	v6 := NetAddress{Type: AddressIPv6}.ToSection().Entries[0].Value.Object
	if v, _ := v6.Get("addr"); v.Type != TypeString || len(v.Bytes) != 16 {
		t.Errorf("IPv6 addr %v", v.Type)
	}
}

// TestLoadingRules checks how FromSection treats values monerod converts,
// ignores or rejects (docs/p2p-levin.md §3.5).
func TestLoadingRules(t *testing.T) {
	obj := func(entries ...Entry) Value { return NewObject(Section{Entries: entries}) }
	sec := func(entries ...Entry) Section { return Section{Entries: entries} }

	var hs HandshakeRequest
	ok := []struct {
		name string
		s    Section
		want HandshakeRequest
	}{
		{"empty", sec(), HandshakeRequest{}},
		{"unknown entries ignored", sec(Entry{"zzz", NewDouble(1)}, Entry{"node_data", obj(Entry{"extra", NewBool(true)}, Entry{"peer_id", NewUint64(5)})}),
			HandshakeRequest{NodeData: NodeData{PeerID: 5}}},
		{"narrow integer widened", sec(Entry{"node_data", obj(Entry{"peer_id", NewUint8(5)}, Entry{"my_port", NewInt64(18080)})}),
			HandshakeRequest{NodeData: NodeData{PeerID: 5, MyPort: 18080}}},
		{"digit string for uint64", sec(Entry{"payload_data", obj(Entry{"current_height", NewString("123")})}),
			HandshakeRequest{PayloadData: CoreSyncData{CurrentHeight: 123}}},
		{"network_id of wrong length ignored", sec(Entry{"node_data", obj(Entry{"network_id", NewString("short")}, Entry{"peer_id", NewUint64(1)})}),
			HandshakeRequest{NodeData: NodeData{PeerID: 1}}},
		{"top_id of wrong length ignored", sec(Entry{"payload_data", obj(Entry{"top_id", NewBlob(make([]byte, 33))})}),
			HandshakeRequest{}},
		{"node_data not an object ignored", sec(Entry{"node_data", NewUint8(1)}), HandshakeRequest{}},
		{"order does not matter", sec(Entry{"payload_data", obj(Entry{"top_version", NewUint8(16)}, Entry{"current_height", NewUint64(9)})}),
			HandshakeRequest{PayloadData: CoreSyncData{CurrentHeight: 9, TopVersion: 16}}},
	}
	for _, c := range ok {
		if err := hs.FromSection(c.s); err != nil || hs != c.want {
			t.Errorf("%s: %+v %v", c.name, hs, err)
		}
	}

	bad := []struct {
		name string
		s    Section
		want error
		path string
	}{
		{"my_port too large", sec(Entry{"node_data", obj(Entry{"my_port", NewUint64(1 << 32)})}), ErrOutOfRange, "node_data.my_port"},
		{"negative peer_id", sec(Entry{"node_data", obj(Entry{"peer_id", NewInt8(-1)})}), ErrOutOfRange, "node_data.peer_id"},
		{"peer_id as bool", sec(Entry{"node_data", obj(Entry{"peer_id", NewBool(true)})}), ErrWrongType, "node_data.peer_id"},
		{"peer_id as object", sec(Entry{"node_data", obj(Entry{"peer_id", obj()})}), ErrWrongType, "node_data.peer_id"},
		{"network_id as integer", sec(Entry{"node_data", obj(Entry{"network_id", NewUint64(1)})}), ErrWrongType, "node_data.network_id"},
		{"top_version 256", sec(Entry{"payload_data", obj(Entry{"top_version", NewUint16(256)})}), ErrOutOfRange, "payload_data.top_version"},
		{"rpc_port as digits", sec(Entry{"node_data", obj(Entry{"rpc_port", NewString("1")})}), ErrWrongType, "node_data.rpc_port"},
		{"height as double", sec(Entry{"payload_data", obj(Entry{"current_height", NewDouble(1)})}), ErrWrongType, "payload_data.current_height"},
	}
	for _, c := range bad {
		err := hs.FromSection(c.s)
		var fe *FieldError
		if !errors.Is(err, c.want) || !errors.As(err, &fe) || fe.Path != c.path {
			t.Errorf("%s: %v, want %v at %s", c.name, err, c.want, c.path)
		}
	}

	var hr HandshakeResponse
	peer := func(entries ...Entry) Section {
		return sec(Entry{"local_peerlist_new", NewObjectArray([]Section{
			PeerlistEntry{Address: NetAddress{Type: AddressIPv4}}.ToSection(),
			{Entries: entries},
		})})
	}
	adr := Entry{"adr", NewObject(NetAddress{Type: AddressIPv4, IP: netip.MustParseAddr("1.1.1.1")}.ToSection())}
	if err := hr.FromSection(peer(adr, Entry{"last_seen", NewInt64(-1)})); err != nil || len(hr.LocalPeerlist) != 2 || hr.LocalPeerlist[1].LastSeen != -1 {
		t.Errorf("negative last_seen: %+v %v", hr, err)
	}
	for _, c := range []struct {
		s    Section
		want error
		path string
	}{
		{peer(), ErrBadAddress, "local_peerlist_new[1].adr"},
		{peer(Entry{"adr", obj(Entry{"type", NewUint8(0)})}), ErrBadAddress, "local_peerlist_new[1].adr.type"},
		{peer(Entry{"adr", obj(Entry{"type", NewUint8(9)})}), ErrBadAddress, "local_peerlist_new[1].adr.type"},
		{peer(adr, Entry{"last_seen", NewUint64(1 << 63)}), ErrOutOfRange, "local_peerlist_new[1].last_seen"},
		{peer(adr, Entry{"id", NewString("x")}), ErrWrongType, "local_peerlist_new[1].id"},
		{peer(Entry{"adr", obj(Entry{"type", NewUint8(1)}, Entry{"addr", obj(Entry{"m_port", NewUint32(70000)})})}), ErrOutOfRange, "local_peerlist_new[1].adr.addr.m_port"},
		{peer(Entry{"adr", obj(Entry{"type", NewUint8(4)}, Entry{"addr", obj(Entry{"host", NewUint8(1)})})}), ErrWrongType, "local_peerlist_new[1].adr.addr.host"},
	} {
		err := hr.FromSection(c.s)
		var fe *FieldError
		if !errors.Is(err, c.want) || !errors.As(err, &fe) || fe.Path != c.path {
			t.Errorf("%v, want %v at %s", err, c.want, c.path)
		}
	}
	// A peer list that is not an array of objects is ignored.
	for _, v := range []Value{NewUint8(1), NewBlobArray([][]byte{{1}}), obj()} {
		if err := hr.FromSection(sec(Entry{"local_peerlist_new", v})); err != nil || hr.LocalPeerlist != nil {
			t.Errorf("%v: %+v %v", v.Type, hr.LocalPeerlist, err)
		}
	}
	var ping PingResponse
	if err := ping.FromSection(sec(Entry{"status", NewUint8(1)})); !errors.Is(err, ErrWrongType) {
		t.Errorf("status as integer: %v", err)
	}
}

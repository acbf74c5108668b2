package params

import (
	"encoding/binary"
	"encoding/hex"
	"testing"

	"github.com/gonero/gonero/cryptonote"
)

// docs/test-vectors.md §2: the mainnet genesis blob, byte for byte.
const mainnetGenesisHex = "010000000000000000000000000000000000000000000000000000000000000000000010270000" +
	"013c01ff0001ffffffffffff03029b2e4c0281c0b02e7c53291a94d1d0cbff8883f8024f51" +
	"42ee494ffbbd08807121017767aafcde9be00dcfd098715ebcf7f410daebc582fda69d24a28e" +
	"9d0bc890d100"

// genesisIDOf hashes a genesis blob independently of the package: header is
// the first 39 bytes (three 1-byte varints, prev_id, nonce), the miner tx is
// everything up to the final tx-count byte, and the id is
// H(varint(len(hb)) || hb) with hb = header || H(miner tx) || varint(1).
func genesisIDOf(t *testing.T, blob []byte) (id, minerTxID cryptonote.Hash) {
	t.Helper()
	if blob[len(blob)-1] != 0 {
		t.Fatalf("genesis blob does not end with an empty tx-hash list")
	}
	header := blob[:39]
	minerTx := blob[39 : len(blob)-1]
	minerTxID = cryptonote.Keccak256(minerTx)
	hb := append(append(append([]byte(nil), header...), minerTxID[:]...), 1)
	if len(hb) >= 0x80 {
		t.Fatalf("hashing blob length %d needs a multi-byte varint", len(hb))
	}
	return cryptonote.Keccak256([]byte{byte(len(hb))}, hb), minerTxID
}

func TestGenesis(t *testing.T) {
	cases := []struct {
		net       Network
		nonce     uint32
		minerTxID string
		id        string
	}{
		{Mainnet, 10000, "c88ce9783b4f11190d7b9c17a69c1c52200f9faaee8e98dd07e6811175177139", "418015bb9ae982a1975da7d79277c2705727a56894ba0fb246adaabb1f4632e3"},
		{Testnet, 10001, "c88ce9783b4f11190d7b9c17a69c1c52200f9faaee8e98dd07e6811175177139", "48ca7cd3c8de5b6a4d53d2861fbdaedca141553559f9be9520068053cda8430b"},
		{Stagenet, 10002, "c099809301da6ad2fde11969b0e9cb291fc698f8dc678cef00506e7baf561de4", "76ee3cc98646292206cd3e86f74d88b4dcc1d937088645e9b0cbca84b7ce74eb"},
		{Regtest, 10000, "c88ce9783b4f11190d7b9c17a69c1c52200f9faaee8e98dd07e6811175177139", "418015bb9ae982a1975da7d79277c2705727a56894ba0fb246adaabb1f4632e3"},
	}
	for _, c := range cases {
		t.Run(c.net.String(), func(t *testing.T) {
			blob := c.net.GenesisBlock()
			if len(blob) != 120 {
				t.Errorf("genesis blob is %d bytes, want 120", len(blob))
			}
			if got := binary.LittleEndian.Uint32(blob[35:39]); got != c.nonce || c.net.GenesisNonce() != c.nonce {
				t.Errorf("nonce in blob %d, GenesisNonce %d, want %d", got, c.net.GenesisNonce(), c.nonce)
			}
			id, txID := genesisIDOf(t, blob)
			if txID.String() != c.minerTxID {
				t.Errorf("miner tx id %s, want %s", txID, c.minerTxID)
			}
			if id.String() != c.id {
				t.Errorf("computed genesis id %s, want %s", id, c.id)
			}
			if c.net.GenesisID() != id {
				t.Errorf("GenesisID() %s disagrees with the hash of GenesisBlock() %s", c.net.GenesisID(), id)
			}
		})
	}
	if got := hex.EncodeToString(Mainnet.GenesisBlock()); got != mainnetGenesisHex {
		t.Errorf("mainnet genesis blob\n got %s\nwant %s", got, mainnetGenesisHex)
	}
	// Callers get a copy.
	b := Mainnet.GenesisBlock()
	b[0] = 0xff
	if Mainnet.GenesisBlock()[0] != 1 {
		t.Error("GenesisBlock returned shared storage")
	}
}

func TestNetworkFacts(t *testing.T) {
	cases := []struct {
		net              Network
		nettype, subdir  string
		p2p, rpc, zmq    uint16
		networkIDLastHex string
	}{
		{Mainnet, "mainnet", "", 18080, 18081, 18082, "10"},
		{Testnet, "testnet", "testnet", 28080, 28081, 28082, "11"},
		{Stagenet, "stagenet", "stagenet", 38080, 38081, 38082, "12"},
		{Regtest, "fakechain", "fake", 18080, 18081, 18082, "10"},
	}
	for _, c := range cases {
		n := c.net
		if n.String() != c.nettype || n.DataSubdir() != c.subdir {
			t.Errorf("%d: nettype %q subdir %q, want %q %q", n, n.String(), n.DataSubdir(), c.nettype, c.subdir)
		}
		if n.P2PPort() != c.p2p || n.RPCPort() != c.rpc || n.ZMQRPCPort() != c.zmq {
			t.Errorf("%s: ports %d/%d/%d, want %d/%d/%d", n, n.P2PPort(), n.RPCPort(), n.ZMQRPCPort(), c.p2p, c.rpc, c.zmq)
		}
		id := n.NetworkID()
		if want := "1230f17161044161173100821" + "6a1a1" + c.networkIDLastHex; hex.EncodeToString(id[:]) != want {
			t.Errorf("%s: network id %x, want %s", n, id, want)
		}
	}
	if Network(9).String() != "unknown" {
		t.Error("out-of-range network should print as unknown")
	}
	if len(Networks()) != 4 {
		t.Errorf("Networks has %d entries", len(Networks()))
	}
}

func TestVersionAt(t *testing.T) {
	cases := []struct {
		net    Network
		height uint64
		want   uint8
	}{
		{Mainnet, 0, 1}, {Mainnet, 1, 1}, {Mainnet, 1009826, 1}, {Mainnet, 1009827, 2},
		{Mainnet, 1545999, 6}, {Mainnet, 1546000, 7}, // docs/test-vectors.md §3: 6.6 then 7.7
		{Mainnet, 1978432, 11}, {Mainnet, 1978433, 12},
		{Mainnet, 2688887, 14}, {Mainnet, 2688888, 15},
		{Mainnet, 2689607, 15}, {Mainnet, 2689608, 16}, {Mainnet, 3195020, 16}, {Mainnet, ^uint64(0), 16},
		{Testnet, 0, 1}, {Testnet, 624633, 1}, {Testnet, 624634, 2}, {Testnet, 1983519, 15}, {Testnet, 1983520, 16},
		{Stagenet, 31999, 1}, {Stagenet, 32000, 2}, {Stagenet, 1151719, 15}, {Stagenet, 1151720, 16},
		{Regtest, 0, 1}, {Regtest, 1, 16}, {Regtest, 202612, 16},
	}
	for _, c := range cases {
		if got := c.net.VersionAt(c.height); got != c.want {
			t.Errorf("%s.VersionAt(%d) = %d, want %d", c.net, c.height, got, c.want)
		}
	}
	for _, n := range Networks() {
		if n.NewestVersion() != 16 {
			t.Errorf("%s newest version %d, want 16", n, n.NewestVersion())
		}
		forks := n.HardForks()
		for i := 1; i < len(forks); i++ {
			if forks[i].Version <= forks[i-1].Version || forks[i].Height <= forks[i-1].Height || forks[i].Time <= forks[i-1].Time {
				t.Errorf("%s: fork %d not strictly after fork %d (HardFork::add_fork would reject it)", n, i, i-1)
			}
		}
	}
	// The table per docs/chain-format.md §10.2, column by column.
	mainnet := []uint64{1, 1009827, 1141317, 1220516, 1288616, 1400000, 1546000, 1685555, 1686275, 1788000, 1788720, 1978433, 2210000, 2210720, 2688888, 2689608}
	testnet := []uint64{1, 624634, 800500, 801219, 802660, 971400, 1057027, 1057058, 1057778, 1154318, 1155038, 1308737, 1543939, 1544659, 1982800, 1983520}
	stagenet := []uint64{1, 32000, 33000, 34000, 35000, 36000, 37000, 176456, 177176, 269000, 269720, 454721, 675405, 676125, 1151000, 1151720}
	for net, heights := range map[Network][]uint64{Mainnet: mainnet, Testnet: testnet, Stagenet: stagenet} {
		forks := net.HardForks()
		if len(forks) != len(heights) {
			t.Fatalf("%s: %d forks, want %d", net, len(forks), len(heights))
		}
		for i, f := range forks {
			if f.Version != uint8(i+1) || f.Height != heights[i] {
				t.Errorf("%s fork %d = v%d@%d, want v%d@%d", net, i, f.Version, f.Height, i+1, heights[i])
			}
		}
	}
	if last := Mainnet.HardForks()[15]; last.Time != 1656629118 {
		t.Errorf("mainnet v16 time %d, want 1656629118", last.Time)
	}
}

func TestCheckpoints(t *testing.T) {
	if len(Regtest.Checkpoints()) != 0 {
		t.Error("regtest must have no checkpoints")
	}
	for _, n := range []Network{Mainnet, Testnet, Stagenet} {
		cps := n.Checkpoints()
		if len(cps) == 0 {
			t.Fatalf("%s has no checkpoints", n)
		}
		for i := 1; i < len(cps); i++ {
			if cps[i].Height <= cps[i-1].Height || cps[i].CumulativeDifficulty.Cmp(cps[i-1].CumulativeDifficulty) <= 0 {
				t.Errorf("%s checkpoint %d (height %d) not ascending", n, i, cps[i].Height)
			}
		}
	}
	// Testnet and stagenet pin their genesis, which must agree with GenesisID.
	for _, n := range []Network{Testnet, Stagenet} {
		if cp := n.Checkpoints()[0]; cp.Height != 0 || cp.ID != n.GenesisID() || cp.CumulativeDifficulty.Lo != 1 {
			t.Errorf("%s genesis checkpoint %+v disagrees with GenesisID %s", n, cp, n.GenesisID())
		}
	}
	// Facts of docs/test-vectors.md §3 that come from other sources than the
	// checkpoint file (block ids recomputed from blobs, RPC captures).
	known := map[uint64]struct {
		id      string
		cumDiff uint64
	}{
		1:       {"771fbcd656ec1464d3a02ead5e18644030007a0fc664c0a964d30922821a8148", 2},
		202612:  {"bbd604d2ba11ba27935e006ed39c9bfdd99b76bf4a50654bc1e1e61217962698", 126654460829362},
		202613:  {"e2aa337e78df1f98f462b3b1e560c6b914dec47b610698b7b7d1e3e86b6197c2", 0x733154039b97},
		3198000: {"1d685b39be51e4e84e0af69fa78e023c7cb21de7d33acd012d0371d5f78712d5", 0x517d415fee3a816},
	}
	found := 0
	for _, cp := range Mainnet.Checkpoints() {
		if k, ok := known[cp.Height]; ok {
			found++
			if cp.ID.String() != k.id || cp.CumulativeDifficulty.Hi != 0 || cp.CumulativeDifficulty.Lo != k.cumDiff {
				t.Errorf("checkpoint %d = %s/%s, want %s/%d", cp.Height, cp.ID, cp.CumulativeDifficulty, k.id, k.cumDiff)
			}
		}
	}
	if found != len(known) {
		t.Errorf("found %d of %d known mainnet checkpoints", found, len(known))
	}
	if last := Mainnet.Checkpoints()[len(Mainnet.Checkpoints())-1]; last.Height != 3743800 {
		t.Errorf("newest mainnet checkpoint at %d, want 3743800 (v0.18.5.3)", last.Height)
	}
}

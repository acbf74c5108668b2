// Package params holds what distinguishes the four Monero networks from each
// other: network id, default ports, genesis block, hard-fork table and
// checkpoints, exactly as monerod v0.18 has them (cryptonote_config.h,
// hardforks/hardforks.cpp, checkpoints/checkpoints.cpp). It is lookups only;
// the rules that use these values live in package consensus.
package params

import (
	"encoding/binary"
	"encoding/hex"

	"github.com/gonero/gonero/cryptonote"
)

// Network selects one of monerod's network types.
type Network uint8

const (
	Mainnet Network = iota
	Testnet
	Stagenet
	// Regtest is monerod's FAKECHAIN (--regtest): the mainnet genesis block,
	// ports and network id, but its own hard-fork table and no checkpoints.
	Regtest
)

// config is one network's row of cryptonote_config.h.
type config struct {
	nettype    string // get_info "nettype"
	dataSubdir string // subdirectory of the data directory ("" = the data directory itself)
	networkID  [16]byte
	p2pPort    uint16
	rpcPort    uint16
	zmqPort    uint16
	genesisTx  string // GENESIS_TX, hex
	nonce      uint32 // GENESIS_NONCE
	genesisID  cryptonote.Hash
	genesis    []byte // built from genesisTx and nonce at init
	hardForks  []HardFork
	checkpts   []Checkpoint
}

// Mainnet and testnet share GENESIS_TX; only the nonce differs.
const mainnetGenesisTx = "013c01ff0001ffffffffffff03029b2e4c0281c0b02e7c53291a94d1d0cbff8883f8024f5142ee494ffbbd08807121017767aafcde9be00dcfd098715ebcf7f410daebc582fda69d24a28e9d0bc890d1"

var configs = [...]config{
	Mainnet: {
		nettype:   "mainnet",
		networkID: [16]byte{0x12, 0x30, 0xf1, 0x71, 0x61, 0x04, 0x41, 0x61, 0x17, 0x31, 0x00, 0x82, 0x16, 0xa1, 0xa1, 0x10},
		p2pPort:   18080, rpcPort: 18081, zmqPort: 18082,
		genesisTx: mainnetGenesisTx,
		nonce:     10000,
		genesisID: cryptonote.MustParseHash("418015bb9ae982a1975da7d79277c2705727a56894ba0fb246adaabb1f4632e3"),
		hardForks: mainnetHardForks,
		checkpts:  mainnetCheckpoints,
	},
	Testnet: {
		nettype:    "testnet",
		dataSubdir: "testnet",
		networkID:  [16]byte{0x12, 0x30, 0xf1, 0x71, 0x61, 0x04, 0x41, 0x61, 0x17, 0x31, 0x00, 0x82, 0x16, 0xa1, 0xa1, 0x11},
		p2pPort:    28080, rpcPort: 28081, zmqPort: 28082,
		genesisTx: mainnetGenesisTx,
		nonce:     10001,
		genesisID: cryptonote.MustParseHash("48ca7cd3c8de5b6a4d53d2861fbdaedca141553559f9be9520068053cda8430b"),
		hardForks: testnetHardForks,
		checkpts:  testnetCheckpoints,
	},
	Stagenet: {
		nettype:    "stagenet",
		dataSubdir: "stagenet",
		networkID:  [16]byte{0x12, 0x30, 0xf1, 0x71, 0x61, 0x04, 0x41, 0x61, 0x17, 0x31, 0x00, 0x82, 0x16, 0xa1, 0xa1, 0x12},
		p2pPort:    38080, rpcPort: 38081, zmqPort: 38082,
		genesisTx: "013c01ff0001ffffffffffff0302df5d56da0c7d643ddd1ce61901c7bdc5fb1738bfe39fbe69c28a3a7032729c0f2101168d0c4ca86fb55a4cf6a36d31431be1c53a3bd7411bb24e8832410289fa6f3b",
		nonce:     10002,
		genesisID: cryptonote.MustParseHash("76ee3cc98646292206cd3e86f74d88b4dcc1d937088645e9b0cbca84b7ce74eb"),
		hardForks: stagenetHardForks,
		checkpts:  stagenetCheckpoints,
	},
	// FAKECHAIN takes get_config(FAKECHAIN), which is the mainnet config.
	Regtest: {
		nettype:    "fakechain",
		dataSubdir: "fake",
		networkID:  [16]byte{0x12, 0x30, 0xf1, 0x71, 0x61, 0x04, 0x41, 0x61, 0x17, 0x31, 0x00, 0x82, 0x16, 0xa1, 0xa1, 0x10},
		p2pPort:    18080, rpcPort: 18081, zmqPort: 18082,
		genesisTx: mainnetGenesisTx,
		nonce:     10000,
		genesisID: cryptonote.MustParseHash("418015bb9ae982a1975da7d79277c2705727a56894ba0fb246adaabb1f4632e3"),
		hardForks: regtestHardForks,
	},
}

func init() {
	for i := range configs {
		configs[i].genesis = genesisBlock(configs[i].genesisTx, configs[i].nonce)
	}
}

// genesisBlock serializes the genesis block the way generate_genesis_block
// (cryptonote_tx_utils.cpp) builds it: major 1, minor 0, timestamp 0, zero
// prev_id, the nonce, GENESIS_TX as miner tx and no other transactions. All
// three header varints are single bytes.
func genesisBlock(txHex string, nonce uint32) []byte {
	tx, err := hex.DecodeString(txHex)
	if err != nil {
		panic("params: bad genesis tx hex: " + err.Error())
	}
	b := make([]byte, 0, 3+32+4+len(tx)+1)
	b = append(b, 1, 0, 0)             // major_version, minor_version, timestamp
	b = append(b, make([]byte, 32)...) // prev_id
	b = binary.LittleEndian.AppendUint32(b, nonce)
	b = append(b, tx...)
	return append(b, 0) // no tx hashes
}

func (n Network) cfg() *config { return &configs[n] }

// Networks lists every network, for iteration (a new slice each call).
func Networks() []Network { return []Network{Mainnet, Testnet, Stagenet, Regtest} }

// String is the network type as get_info's "nettype" prints it:
// "mainnet", "testnet", "stagenet" or "fakechain".
func (n Network) String() string {
	if int(n) >= len(configs) {
		return "unknown"
	}
	return n.cfg().nettype
}

// DataSubdir is the subdirectory of the data directory monerod uses for this
// network ("" for mainnet, which uses the data directory itself).
func (n Network) DataSubdir() string { return n.cfg().dataSubdir }

// NetworkID is the 16-byte id sent in every P2P handshake (NETWORK_ID).
func (n Network) NetworkID() [16]byte { return n.cfg().networkID }

// P2PPort is the default P2P listening port (P2P_DEFAULT_PORT).
func (n Network) P2PPort() uint16 { return n.cfg().p2pPort }

// RPCPort is the default RPC port (RPC_DEFAULT_PORT).
func (n Network) RPCPort() uint16 { return n.cfg().rpcPort }

// ZMQRPCPort is the default ZMQ RPC port (ZMQ_RPC_DEFAULT_PORT).
func (n Network) ZMQRPCPort() uint16 { return n.cfg().zmqPort }

// GenesisNonce is GENESIS_NONCE.
func (n Network) GenesisNonce() uint32 { return n.cfg().nonce }

// GenesisBlock returns the serialized genesis block (a fresh copy).
func (n Network) GenesisBlock() []byte {
	return append([]byte(nil), n.cfg().genesis...)
}

// GenesisID is the block id of the genesis block.
func (n Network) GenesisID() cryptonote.Hash { return n.cfg().genesisID }

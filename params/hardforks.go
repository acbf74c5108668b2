package params

// HardFork is one row of a hard-fork table: blocks from Height on must carry
// major version Version. Time is the fork's announced Unix time, which
// monerod only uses for hard_fork_info's "state" (update-needed warning).
// Every v0.18 fork has voting threshold 0, so the table alone decides the
// version of a height; the 10080-block voting window never matters.
type HardFork struct {
	Version uint8
	Height  uint64
	Time    int64
}

// hardforks.cpp mainnet_hard_forks. The table starts with version 1 at
// height 1; height 0 (genesis) is version 1 too (HardFork's original_version).
var mainnetHardForks = []HardFork{
	{1, 1, 1341378000},
	{2, 1009827, 1442763710},
	{3, 1141317, 1458558528},
	{4, 1220516, 1483574400},
	{5, 1288616, 1489520158},
	{6, 1400000, 1503046577},
	{7, 1546000, 1521303150},
	{8, 1685555, 1535889547},
	{9, 1686275, 1535889548},
	{10, 1788000, 1549792439},
	{11, 1788720, 1550225678},
	{12, 1978433, 1571419280},
	{13, 2210000, 1598180817},
	{14, 2210720, 1598180818},
	{15, 2688888, 1656629117},
	{16, 2689608, 1656629118},
}

// hardforks.cpp testnet_hard_forks.
var testnetHardForks = []HardFork{
	{1, 1, 1341378000},
	{2, 624634, 1445355000},
	{3, 800500, 1472415034},
	{4, 801219, 1472415035},
	{5, 802660, 1472415036 + 86400*180},
	{6, 971400, 1501709789},
	{7, 1057027, 1512211236},
	{8, 1057058, 1533211200},
	{9, 1057778, 1533297600},
	{10, 1154318, 1550153694},
	{11, 1155038, 1550225678},
	{12, 1308737, 1569582000},
	{13, 1543939, 1599069376},
	{14, 1544659, 1599069377},
	{15, 1982800, 1652727000},
	{16, 1983520, 1652813400},
}

// hardforks.cpp stagenet_hard_forks.
var stagenetHardForks = []HardFork{
	{1, 1, 1341378000},
	{2, 32000, 1521000000},
	{3, 33000, 1521120000},
	{4, 34000, 1521240000},
	{5, 35000, 1521360000},
	{6, 36000, 1521480000},
	{7, 37000, 1521600000},
	{8, 176456, 1537821770},
	{9, 177176, 1537821771},
	{10, 269000, 1550153694},
	{11, 269720, 1550225678},
	{12, 454721, 1571419280},
	{13, 675405, 1598180817},
	{14, 676125, 1598180818},
	{15, 1151000, 1656629117},
	{16, 1151720, 1656629118},
}

// --regtest (cryptonote_core.cpp regtest_hard_forks): version 1 at 0, then
// the newest mainnet version from height 1. Blockchain::init gives test
// forks the times n+1.
var regtestHardForks = []HardFork{
	{1, 0, 1},
	{16, 1, 2},
}

// HardForks returns the network's hard-fork table, oldest first (a copy).
func (n Network) HardForks() []HardFork {
	return append([]HardFork(nil), n.cfg().hardForks...)
}

// VersionAt is the block major version required at height: the version of
// the last fork whose height is <= height, or 1 before the first
// (HardFork::get_ideal_version). A block's minor version (its vote) must be
// at least this too; see consensus.CheckVersion.
func (n Network) VersionAt(height uint64) uint8 {
	v := uint8(1)
	for _, f := range n.cfg().hardForks {
		if f.Height > height {
			break
		}
		v = f.Version
	}
	return v
}

// NewestVersion is the last version in the table (get_ideal_version()).
func (n Network) NewestVersion() uint8 {
	t := n.cfg().hardForks
	return t[len(t)-1].Version
}

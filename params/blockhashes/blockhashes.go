// Package blockhashes reads, writes, generates and verifies monerod's
// block-hash list (src/blocks/checkpoints.dat, monero-blockchain-export
// --blocksdat): for every group of 512 consecutive blocks from genesis, the
// Keccak-256 of their 512 ids and the Keccak-256 of their 512 weights. A node
// holding the list can check a peer's chain entry group by group before
// downloading anything, and skip the proof of work of blocks whose id it
// already knows ("fast sync").
//
// Format: a u32 little-endian group count N, then N records of 64 bytes (the
// id hash, then the weight hash); the size is exactly 4 + 64·N.
package blockhashes

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"

	"github.com/gonero/gonero/cryptonote"
)

// GroupSize is the number of blocks per record (HASH_OF_HASHES_STEP).
const GroupSize = 512

// recordSize is one record: the id hash and the weight hash.
const recordSize = 2 * 32

// MaxGroups bounds the count a file may claim: monerod refuses a count above
// (2^32 − 1 − 4) / 32 ("Block hash data is too large"). At 64 bytes a record
// that is a 4 GiB file; Parse never allocates more than the data it is given.
const MaxGroups = (1<<32 - 1 - 4) / 32

// Group is one record: the hashes of the ids and of the weights of the
// heights GroupSize·g … GroupSize·g + GroupSize − 1.
type Group struct {
	IDs     cryptonote.Hash
	Weights cryptonote.Hash
}

// List is a parsed block-hash list.
type List struct {
	Groups []Group
}

// ErrFormat: the data are not a block-hash list.
var ErrFormat = errors.New("not a block-hash list")

// Parse reads a block-hash list. Like monerod's loader it requires the
// exact size 4 + 64·N; anything else is an error, never a partial list.
func Parse(data []byte) (*List, error) {
	if len(data) < 4 {
		return nil, fmt.Errorf("%w: %d bytes, the group count alone takes 4", ErrFormat, len(data))
	}
	n := uint64(binary.LittleEndian.Uint32(data))
	if n > MaxGroups {
		return nil, fmt.Errorf("%w: %d groups is more than %d", ErrFormat, n, uint64(MaxGroups))
	}
	if want := 4 + n*recordSize; uint64(len(data)) != want {
		return nil, fmt.Errorf("%w: %d bytes for %d groups, want exactly %d", ErrFormat, len(data), n, want)
	}
	l := &List{Groups: make([]Group, n)}
	p := data[4:]
	for i := range l.Groups {
		copy(l.Groups[i].IDs[:], p[:32])
		copy(l.Groups[i].Weights[:], p[32:64])
		p = p[recordSize:]
	}
	return l, nil
}

// Marshal writes the list in the file format.
func (l *List) Marshal() []byte {
	out := make([]byte, 4, 4+len(l.Groups)*recordSize)
	binary.LittleEndian.PutUint32(out, uint32(len(l.Groups)))
	for _, g := range l.Groups {
		out = append(out, g.IDs[:]...)
		out = append(out, g.Weights[:]...)
	}
	return out
}

// Heights is the number of heights the list covers: 0 … Heights()−1.
func (l *List) Heights() uint64 {
	if l == nil {
		return 0
	}
	return uint64(len(l.Groups)) * GroupSize
}

// HashIDs is the id hash of a group: Keccak-256 of the ids concatenated.
func HashIDs(ids []cryptonote.Hash) cryptonote.Hash {
	buf := make([]byte, 0, len(ids)*32)
	for i := range ids {
		buf = append(buf, ids[i][:]...)
	}
	return cryptonote.Keccak256(buf)
}

// HashWeights is the weight hash of a group: Keccak-256 of the weights as
// u64 little-endian, concatenated.
func HashWeights(weights []uint64) cryptonote.Hash {
	buf := make([]byte, 8*len(weights))
	for i, w := range weights {
		binary.LittleEndian.PutUint64(buf[8*i:], w)
	}
	return cryptonote.Keccak256(buf)
}

// MakeGroup hashes one group's ids and weights (GroupSize of each).
func MakeGroup(ids []cryptonote.Hash, weights []uint64) (Group, error) {
	if len(ids) != GroupSize || len(weights) != GroupSize {
		return Group{}, fmt.Errorf("a group is %d ids and weights, not %d and %d", GroupSize, len(ids), len(weights))
	}
	return Group{IDs: HashIDs(ids), Weights: HashWeights(weights)}, nil
}

// Source gives the id and weight of the main-chain block at a height (a
// store, an export file).
type Source func(height uint64) (id cryptonote.Hash, weight uint64, err error)

// Generate builds the list of a chain of height blocks (heights 0 …
// height−1): its complete groups only, as monero-blockchain-export
// --blocksdat writes it (a trailing partial group is left out).
func Generate(height uint64, src Source) (*List, error) {
	n := height / GroupSize
	if n > MaxGroups {
		return nil, fmt.Errorf("%d groups is more than the format holds", n)
	}
	l := &List{Groups: make([]Group, n)}
	ids := make([]cryptonote.Hash, GroupSize)
	weights := make([]uint64, GroupSize)
	for g := range l.Groups {
		for i := range ids {
			var err error
			if ids[i], weights[i], err = src(uint64(g)*GroupSize + uint64(i)); err != nil {
				return nil, fmt.Errorf("height %d: %w", uint64(g)*GroupSize+uint64(i), err)
			}
		}
		l.Groups[g], _ = MakeGroup(ids, weights)
	}
	return l, nil
}

// MismatchError says which group of a chain disagrees with the list.
type MismatchError struct {
	Group   int
	Weights bool // the ids match, the weights do not
}

func (e *MismatchError) Error() string {
	what := "ids"
	if e.Weights {
		what = "weights"
	}
	return fmt.Sprintf("blocks %d … %d: the %s do not match the block-hash list",
		uint64(e.Group)*GroupSize, uint64(e.Group)*GroupSize+GroupSize-1, what)
}

// Verify checks a chain against every group of the list; the chain must
// hold at least Heights() blocks. It returns a *MismatchError for the first
// group that differs.
func (l *List) Verify(src Source) error {
	ids := make([]cryptonote.Hash, GroupSize)
	weights := make([]uint64, GroupSize)
	for g, want := range l.Groups {
		for i := range ids {
			var err error
			if ids[i], weights[i], err = src(uint64(g)*GroupSize + uint64(i)); err != nil {
				return fmt.Errorf("height %d: %w", uint64(g)*GroupSize+uint64(i), err)
			}
		}
		if HashIDs(ids) != want.IDs {
			return &MismatchError{Group: g}
		}
		if HashWeights(weights) != want.Weights {
			return &MismatchError{Group: g, Weights: true}
		}
	}
	return nil
}

// Release is a monero release's embedded mainnet list, known by the
// SHA-256 of the whole file (monerod's expected_block_hashes_hash).
type Release struct {
	Version string
	Groups  int
	SHA256  [32]byte
}

func pin(version string, groups int, sum string) Release {
	b, err := hex.DecodeString(sum)
	if err != nil || len(b) != 32 {
		panic("bad pin " + sum)
	}
	r := Release{Version: version, Groups: groups}
	copy(r.SHA256[:], b)
	return r
}

// mainnetReleases are the mainnet lists of the v0.18 releases
// (docs/mainnet.md §2.3), oldest first. Each is a prefix of the next.
var mainnetReleases = []Release{
	pin("v0.18.0.0", 5198, "e9371004b9f6be59921b27bc81e28b4715845ade1c6d16891d5c455f72e21365"),
	pin("v0.18.3.4", 6246, "8ada865350270fd008397684d978dac75ea4029a8a1ffcaa9975c43be119ec19"),
	pin("v0.18.4.0", 6593, "e3087cc643a8cb9e2f0a1e54e87f67f087a72e41701b469f5dfed39fd484ca4a"),
	pin("v0.18.4.3", 6867, "4725ea463d1520b56ce7cd54dd478d44f976e65d73ad6fe01c427eff854ecf79"),
	pin("v0.18.5.0", 7152, "3aed3b6b896e8c1f97802b65f84966526d1ac8d75f417e5ce666f31a5928ac3f"),
	pin("v0.18.5.1", 7240, "2aea941d43024422a63f223c84b9d88d1f58d31e1f508c2d6d43cd637ba32d16"),
	pin("v0.18.5.3", 7312, "219fb7dd7d13cc54a64acd56364e809ed85bc0f6ffa06567cab02e6685fa78a0"),
	// Debian's monero 0.18.5.3 package (the reference monerod) carries a longer
	// list than the upstream tag: the tag's 7312 groups and 60 more.
	pin("v0.18.5.3 (Debian)", 7372, "4871b67b077087affd07094be0f70bfd0d4e4105df126646e0a7524fe02b1d5d"),
}

// MainnetReleases returns a copy of the pinned mainnet lists, oldest first.
func MainnetReleases() []Release { return slices.Clone(mainnetReleases) }

// PinnedRelease returns the release whose mainnet list data are, if any.
// monerod accepts only its own release's list and ignores any other data;
// gonero accepts the list of any known release, no other.
func PinnedRelease(data []byte) (Release, bool) {
	sum := sha256.Sum256(data)
	for _, r := range mainnetReleases {
		if r.SHA256 == sum {
			return r, true
		}
	}
	return Release{}, false
}

// FindRelease finds a known release's mainnet list inside data (a monerod
// binary, which embeds its release's list as a byte array): the first
// place where a pinned release's group count starts exactly 4 + 64·N bytes
// with that release's SHA-256. It returns a copy.
func FindRelease(data []byte) ([]byte, Release, bool) {
	for _, r := range mainnetReleases {
		size := 4 + r.Groups*recordSize
		var count [4]byte
		binary.LittleEndian.PutUint32(count[:], uint32(r.Groups))
		for off := 0; off+size <= len(data); off++ {
			i := bytes.Index(data[off:len(data)-size+4], count[:])
			if i < 0 {
				break
			}
			off += i
			if sha256.Sum256(data[off:off+size]) == r.SHA256 {
				return bytes.Clone(data[off : off+size]), r, true
			}
		}
	}
	return nil, Release{}, false
}

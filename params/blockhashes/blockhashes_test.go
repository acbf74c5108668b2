package blockhashes_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/csv"
	"errors"
	"os"
	"strconv"
	"testing"

	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/params/blockhashes"
)

// monerodList extracts the v0.18.0.0 mainnet list embedded in the installed
// monerod (docs/mainnet.md §2.3: search for the LE group count 5198 and take the
// 332,676-byte candidate with the pinned SHA-256), and checks that exactly
// one candidate matches.
func monerodList(t *testing.T) []byte {
	t.Helper()
	const path = "/usr/bin/monerod"
	testutil.RequireFile(t, path, "apt-get install monero")
	bin, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data, rel, ok := blockhashes.FindRelease(bin)
	if !ok || rel.Version != "v0.18.0.0" {
		t.Fatalf("no pinned list in %s (found %v %+v)", path, ok, rel)
	}
	var count [4]byte
	binary.LittleEndian.PutUint32(count[:], uint32(rel.Groups))
	matches := 0
	for off := 0; ; off++ {
		i := bytes.Index(bin[off:], count[:])
		if i < 0 {
			break
		}
		off += i
		if off+len(data) <= len(bin) && sha256.Sum256(bin[off:off+len(data)]) == rel.SHA256 {
			matches++
		}
	}
	if matches != 1 {
		t.Fatalf("%d candidates match the v0.18.0.0 pin, want exactly 1", matches)
	}
	return data
}

// The list monerod v0.18.0.0 carries parses to 5198 groups (heights below
// 2,661,376), round-trips byte for byte and is recognised as that release's.
func TestMonerodEmbeddedList(t *testing.T) {
	data := monerodList(t)
	if len(data) != 332676 {
		t.Fatalf("size %d, mainnet.md §2.3 says 332,676", len(data))
	}
	l, err := blockhashes.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Groups) != 5198 || l.Heights() != 2661376 {
		t.Fatalf("%d groups covering %d heights", len(l.Groups), l.Heights())
	}
	if !bytes.Equal(l.Marshal(), data) {
		t.Fatal("Marshal does not give back the parsed bytes")
	}
	rel, ok := blockhashes.PinnedRelease(data)
	if !ok || rel.Version != "v0.18.0.0" || rel.Groups != len(l.Groups) {
		t.Fatalf("pinned as %+v, %v", rel, ok)
	}
	// A prefix of a pinned file is not itself pinned (unless it is an
	// older release's file, which no prefix of the oldest can be).
	if _, ok := blockhashes.PinnedRelease(append(binary.LittleEndian.AppendUint32(nil, 5197), data[4:len(data)-64]...)); ok {
		t.Fatal("a 5197-group prefix was taken for a known release")
	}
	// Every pin's group count is consistent with the file size rule.
	for i, r := range blockhashes.MainnetReleases() {
		if i > 0 && r.Groups <= blockhashes.MainnetReleases()[i-1].Groups {
			t.Fatalf("releases out of order at %s", r.Version)
		}
	}
}

// The weights CSV of testdata (heights 2,850,000 … 3,049,999) lies
// beyond the v0.18.0.0 list, so its 390 complete groups can only be checked
// against a newer list (v0.18.5.1's src/blocks/checkpoints.dat), given by
// GONERO_BLOCK_HASHES_FILE. This test asserts the first fact always.
func TestWeightGroupsAgainstNewerList(t *testing.T) {
	rows := readWeights(t)
	first := rows[0].height
	g0 := (first + blockhashes.GroupSize - 1) / blockhashes.GroupSize
	var groups []blockhashes.Group
	var gIdx []uint64
	for g := g0; ; g++ {
		lo := g*blockhashes.GroupSize - first
		if lo+blockhashes.GroupSize > uint64(len(rows)) {
			break
		}
		w := make([]uint64, blockhashes.GroupSize)
		for i := range w {
			if rows[lo+uint64(i)].height != g*blockhashes.GroupSize+uint64(i) {
				t.Fatalf("CSV not contiguous at %d", rows[lo+uint64(i)].height)
			}
			w[i] = rows[lo+uint64(i)].weight
		}
		groups = append(groups, blockhashes.Group{Weights: blockhashes.HashWeights(w)})
		gIdx = append(gIdx, g)
	}
	if len(groups) != 390 || gIdx[0] != 5567 || gIdx[len(gIdx)-1] != 5956 {
		t.Fatalf("%d complete groups %d … %d, mainnet.md §2.3 counts 390 (5567 … 5956)", len(groups), gIdx[0], gIdx[len(gIdx)-1])
	}
	if v0180 := blockhashes.MainnetReleases()[0]; uint64(v0180.Groups) > gIdx[0] {
		t.Fatal("the v0.18.0.0 list would cover the CSV")
	}
	path := os.Getenv("GONERO_BLOCK_HASHES_FILE")
	if path == "" {
		t.Skip("GONERO_BLOCK_HASHES_FILE (a v0.18.5.1 checkpoints.dat) not set: the weight groups are beyond the v0.18.0.0 list monerod carries")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	l, err := blockhashes.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := blockhashes.PinnedRelease(data); !ok {
		t.Fatalf("%s is no known release's list", path)
	}
	if uint64(len(l.Groups)) <= gIdx[len(gIdx)-1] {
		t.Fatalf("%s has %d groups, too few for the CSV", path, len(l.Groups))
	}
	// The file only grows: its first 5198 records are v0.18.0.0's.
	old, err := blockhashes.Parse(monerodList(t))
	if err != nil {
		t.Fatal(err)
	}
	for g := range old.Groups {
		if l.Groups[g] != old.Groups[g] {
			t.Fatalf("group %d differs from v0.18.0.0's", g)
		}
	}
	for i, g := range gIdx {
		if l.Groups[g].Weights != groups[i].Weights {
			t.Fatalf("group %d: weight hash %s, the list has %s", g, groups[i].Weights, l.Groups[g].Weights)
		}
	}
}

type weightRow struct{ height, weight uint64 }

func readWeights(t *testing.T) []weightRow {
	f, err := os.Open(testutil.Path(t, "testdata", "mainnet", "context", "weights_2850000_3049999.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var rows []weightRow
	for _, r := range recs[1:] {
		h, err1 := strconv.ParseUint(r[0], 10, 64)
		w, err2 := strconv.ParseUint(r[1], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("bad CSV row %v", r)
		}
		rows = append(rows, weightRow{h, w})
	}
	return rows
}

func TestParseRefusesBadSizes(t *testing.T) {
	for _, data := range [][]byte{
		nil,
		{1, 0, 0},
		{1, 0, 0, 0},                  // one group announced, none there
		append([]byte{0, 0, 0, 0}, 0), // trailing byte
		append([]byte{1, 0, 0, 0}, make([]byte, 65)...),
		{0xff, 0xff, 0xff, 0xff}, // more groups than the format holds
	} {
		if _, err := blockhashes.Parse(data); !errors.Is(err, blockhashes.ErrFormat) {
			t.Errorf("Parse(% x…) = %v, want ErrFormat", data[:min(len(data), 8)], err)
		}
	}
	l, err := blockhashes.Parse([]byte{0, 0, 0, 0})
	if err != nil || len(l.Groups) != 0 {
		t.Fatalf("an empty list: %v, %v", l, err)
	}
}

// Verify finds the first group whose ids or weights differ.
func TestGenerateAndVerify(t *testing.T) {
	const height = 3*blockhashes.GroupSize + 7
	ids := make([]cryptonote.Hash, height)
	weights := make([]uint64, height)
	for h := range ids {
		ids[h] = cryptonote.Keccak256([]byte(strconv.Itoa(h)))
		weights[h] = uint64(h*31) % 1000
	}
	src := func(ids []cryptonote.Hash, weights []uint64) blockhashes.Source {
		return func(h uint64) (cryptonote.Hash, uint64, error) { return ids[h], weights[h], nil }
	}
	l, err := blockhashes.Generate(height, src(ids, weights))
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Groups) != 3 {
		t.Fatalf("%d groups for %d blocks", len(l.Groups), height)
	}
	if err := l.Verify(src(ids, weights)); err != nil {
		t.Fatal(err)
	}
	ids2 := append([]cryptonote.Hash(nil), ids...)
	ids2[2*blockhashes.GroupSize+5][0] ^= 1
	var me *blockhashes.MismatchError
	if err := l.Verify(src(ids2, weights)); !errors.As(err, &me) || me.Group != 2 || me.Weights {
		t.Fatalf("tampered id: %v", err)
	}
	w2 := append([]uint64(nil), weights...)
	w2[blockhashes.GroupSize]++
	if err := l.Verify(src(ids, w2)); !errors.As(err, &me) || me.Group != 1 || !me.Weights {
		t.Fatalf("tampered weight: %v", err)
	}
}

func FuzzBlockHashList(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0})
	f.Add(append([]byte{1, 0, 0, 0}, make([]byte, 64)...))
	f.Add(append([]byte{2, 0, 0, 0}, make([]byte, 64)...))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := blockhashes.Parse(data)
		if err != nil {
			if !errors.Is(err, blockhashes.ErrFormat) {
				t.Fatalf("error not ErrFormat: %v", err)
			}
			return
		}
		if !bytes.Equal(l.Marshal(), data) {
			t.Fatal("accepted data do not round-trip")
		}
	})
}

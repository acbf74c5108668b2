package tree

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"testing"

	"github.com/gonero/gonero/fcmp/helioselene"
	"github.com/gonero/gonero/internal/testutil"
)

type gensVectors struct {
	G     string   `json:"g"`
	H     string   `json:"h"`
	Len   int      `json:"g_bold_len"`
	GBold []string `json:"g_bold[0..4]"`
	HBold []string `json:"h_bold[0..4]"`
	GLast string   `json:"g_bold[last]"`
}

type vectors struct {
	HashInit struct{ Helios, Selene string } `json:"hash_init"`
	BP       struct {
		Helios gensVectors `json:"helios"`
		Selene gensVectors `json:"selene"`
	} `json:"bp_generators"`
	TreeHash []map[string]json.RawMessage `json:"tree_hash"`
}

func loadVectors(t *testing.T) *vectors {
	t.Helper()
	b, err := os.ReadFile(testutil.Path(t, "testdata", "fcmp", "vectors.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v vectors
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.TreeHash) != 2 || v.BP.Selene.Len == 0 {
		t.Fatal("vectors.json is not the oracle's vectors output")
	}
	return &v
}

func str(t *testing.T, m map[string]json.RawMessage, k string) string {
	t.Helper()
	var s string
	if err := json.Unmarshal(m[k], &s); err != nil {
		t.Fatalf("%s: %v", k, err)
	}
	return s
}

func strs(t *testing.T, m map[string]json.RawMessage, k string) []string {
	t.Helper()
	var s []string
	if err := json.Unmarshal(m[k], &s); err != nil {
		t.Fatalf("%s: %v", k, err)
	}
	return s
}

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func hexOf(b [32]byte) string { return hex.EncodeToString(b[:]) }

func TestHashInitAndGenerators(t *testing.T) {
	v := loadVectors(t)
	hi, si := HeliosHashInit(), SeleneHashInit()
	if got := hexOf(hi.Bytes()); got != v.HashInit.Helios {
		t.Errorf("Helios hash init %s, want %s", got, v.HashInit.Helios)
	}
	if got := hexOf(si.Bytes()); got != v.HashInit.Selene {
		t.Errorf("Selene hash init %s, want %s", got, v.HashInit.Selene)
	}
	h, s := Helios(), Selene()
	check := func(name, got, want string) {
		if got != want {
			t.Errorf("%s = %s, want %s", name, got, want)
		}
	}
	check("Helios g", hexOf(h.G.Bytes()), v.BP.Helios.G)
	check("Helios h", hexOf(h.H.Bytes()), v.BP.Helios.H)
	check("Selene g", hexOf(s.G.Bytes()), v.BP.Selene.G)
	check("Selene h", hexOf(s.H.Bytes()), v.BP.Selene.H)
	if len(h.GBold) != v.BP.Helios.Len || len(s.GBold) != v.BP.Selene.Len || len(h.HBold) != len(h.GBold) ||
		len(s.HBold) != len(s.GBold) {
		t.Fatalf("lengths %d %d, want %d %d", len(h.GBold), len(s.GBold), v.BP.Helios.Len, v.BP.Selene.Len)
	}
	for i := range 4 {
		check("Helios g_bold", hexOf(h.GBold[i].Bytes()), v.BP.Helios.GBold[i])
		check("Helios h_bold", hexOf(h.HBold[i].Bytes()), v.BP.Helios.HBold[i])
		check("Selene g_bold", hexOf(s.GBold[i].Bytes()), v.BP.Selene.GBold[i])
		check("Selene h_bold", hexOf(s.HBold[i].Bytes()), v.BP.Selene.HBold[i])
	}
	check("Helios g_bold[last]", hexOf(h.GBold[len(h.GBold)-1].Bytes()), v.BP.Helios.GLast)
	check("Selene g_bold[last]", hexOf(s.GBold[len(s.GBold)-1].Bytes()), v.BP.Selene.GLast)
	// 300 is the first index whose varint takes two bytes beyond 127 in the middle of the vectors.
	if varint(nil, 300)[0] != 0xac || varint(nil, 300)[1] != 0x02 || len(varint(nil, 127)) != 1 {
		t.Error("varint")
	}
}

func fe(t *testing.T, s string) helioselene.Field25519 {
	t.Helper()
	var z helioselene.Field25519
	if _, err := z.SetBytes(unhex(t, s)); err != nil {
		t.Fatal(err)
	}
	return z
}

func fq(t *testing.T, s string) helioselene.HelioseleneField {
	t.Helper()
	var z helioselene.HelioseleneField
	if _, err := z.SetBytes(unhex(t, s)); err != nil {
		t.Fatal(err)
	}
	return z
}

func TestTreeHashVectors(t *testing.T) {
	v := loadVectors(t)
	sel := v.TreeHash[0]
	if str(t, sel, "curve") != "Selene" {
		t.Fatal("first tree_hash entry is not Selene")
	}
	var children []helioselene.Field25519
	for _, c := range strs(t, sel, "children") {
		children = append(children, fe(t, c))
	}
	var zero helioselene.Field25519
	init := SeleneHashInit()
	h3, err := SeleneHashGrow(&init, 0, &zero, children[:3])
	if err != nil || hexOf(h3.Bytes()) != str(t, sel, "grow(init,0,0,children[0..3])") {
		t.Errorf("grow 0..3 = %x %v", h3.Bytes(), err)
	}
	h6, err := SeleneHashGrow(h3, 3, &zero, children[3:])
	if err != nil || hexOf(h6.Bytes()) != str(t, sel, "grow(prev,3,0,children[3..6])") {
		t.Errorf("grow 3..6 = %x %v", h6.Bytes(), err)
	}
	direct, _ := SeleneHashGrow(&init, 0, &zero, children)
	if !direct.Equal(h6) {
		t.Error("growing at once and in two steps differ")
	}
	newc := fe(t, str(t, sel, "new_child_5"))
	h6b, err := SeleneHashGrow(h6, 5, &children[5], []helioselene.Field25519{newc})
	if err != nil || hexOf(h6b.Bytes()) != str(t, sel, "grow(h6,5,children[5],[new_child_5])") {
		t.Errorf("replace 5 = %x %v", h6b.Bytes(), err)
	}
	back := fe(t, str(t, sel, "grow_back_at_4"))
	tr, err := SeleneHashTrim(h6, 4, children[4:], &back)
	if err != nil || hexOf(tr.Bytes()) != str(t, sel, "trim(h6,4,children[4..6],grow_back_at_4)") {
		t.Errorf("trim = %x %v", tr.Bytes(), err)
	}
	x, _, err := h6.XY()
	if xb := x.Bytes(); err != nil || hexOf(xb) != str(t, sel, "x_of_root_as_helios_scalar") {
		t.Errorf("x of root = %x %v", xb, err)
	}
	// The same trim as a fresh hash of what remains.
	want, _ := SeleneHashGrow(&init, 0, &zero, append(append([]helioselene.Field25519{}, children[:4]...), back))
	if !want.Equal(tr) {
		t.Error("trim differs from a fresh hash of the remaining children")
	}

	hel := v.TreeHash[1]
	if str(t, hel, "curve") != "Helios" {
		t.Fatal("second tree_hash entry is not Helios")
	}
	var hc []helioselene.HelioseleneField
	for _, c := range strs(t, hel, "children") {
		hc = append(hc, fq(t, c))
	}
	var hzero helioselene.HelioseleneField
	hinit := HeliosHashInit()
	hh, err := HeliosHashGrow(&hinit, 0, &hzero, hc)
	if err != nil || hexOf(hh.Bytes()) != str(t, hel, "grow(init,0,0,children)") {
		t.Errorf("Helios grow = %x %v", hh.Bytes(), err)
	}
	hx, _, _ := hh.XY()
	if hexOf(hx.Bytes()) != str(t, hel, "x_of_root_as_selene_scalar") {
		t.Errorf("Helios x of root = %x", hx.Bytes())
	}
	// Trim back to the first child and compare with a fresh hash.
	ht, err := HeliosHashTrim(hh, 1, hc[1:], &hc[1])
	h1, _ := HeliosHashGrow(&hinit, 0, &hzero, hc[:2])
	if err != nil || !ht.Equal(h1) {
		t.Error("Helios trim (grow back the same child) differs from a fresh hash")
	}
}

func TestHashRefuses(t *testing.T) {
	var zero helioselene.Field25519
	init := SeleneHashInit()
	if _, err := SeleneHashGrow(&init, 0, &zero, nil); err == nil {
		t.Error("grow without children")
	}
	if _, err := SeleneHashGrow(&init, SeleneGeneratorCount, &zero, make([]helioselene.Field25519, 1)); err == nil {
		t.Error("grow beyond the generators")
	}
	if _, err := SeleneHashGrow(&init, -1, &zero, make([]helioselene.Field25519, 1)); err == nil {
		t.Error("negative offset")
	}
	var hzero helioselene.HelioseleneField
	hinit := HeliosHashInit()
	if _, err := HeliosHashTrim(&hinit, HeliosGeneratorCount-1, make([]helioselene.HelioseleneField, 2), &hzero); err == nil {
		t.Error("trim beyond the generators")
	}
}

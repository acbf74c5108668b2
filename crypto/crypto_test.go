package crypto

import (
	"bufio"
	"encoding/hex"
	"os"
	"strconv"
	"strings"
	"testing"

	"filippo.io/edwards25519"

	"github.com/gonero/gonero/internal/testutil"
)

// cryptoVectors is monerod's own crypto test file (Debian package
// monero-tests), replayed line by line.
const cryptoVectors = "/usr/share/monero/testdata/crypto/tests.txt"

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	if s == "x" {
		return nil
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

func TestMonerodCryptoVectors(t *testing.T) {
	testutil.RequireFile(t, cryptoVectors, "apt-get install monero-tests")
	f, err := os.Open(cryptoVectors)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	counts := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	line := 0
	for sc.Scan() {
		line++
		w := strings.Fields(sc.Text())
		if len(w) == 0 {
			continue
		}
		op := w[0]
		switch op {
		case "check_scalar":
			got := IsCanonicalScalar(unhex(t, w[1]))
			if want := w[2] == "true"; got != want {
				t.Errorf("line %d: check_scalar %s = %v, want %v", line, w[1], got, want)
			}
		case "check_key":
			_, err := DecodePoint(unhex(t, w[1]))
			if want := w[2] == "true"; (err == nil) != want {
				t.Errorf("line %d: check_key %s = %v, want %v", line, w[1], err == nil, want)
			}
		case "hash_to_scalar":
			got := HashToScalar(unhex(t, w[1]))
			if hex.EncodeToString(got.Bytes()) != w[2] {
				t.Errorf("line %d: hash_to_scalar = %x, want %s", line, got.Bytes(), w[2])
			}
		case "hash_to_point":
			p, err := HashToPoint(unhex(t, w[1]))
			if err != nil || hex.EncodeToString(p.Bytes()) != w[2] {
				t.Errorf("line %d: hash_to_point(%s) = %v %v, want %s", line, w[1], p, err, w[2])
			}
		case "hash_to_ec":
			p, err := HashToEC(unhex(t, w[1]))
			if err != nil || hex.EncodeToString(p.Bytes()) != w[2] {
				t.Errorf("line %d: hash_to_ec(%s) wrong, want %s", line, w[1], w[2])
			}
		case "generate_key_image":
			sec, err := edwards25519.NewScalar().SetCanonicalBytes(unhex(t, w[2]))
			if err != nil {
				t.Fatalf("line %d: secret: %v", line, err)
			}
			ki, err := GenerateKeyImage(unhex(t, w[1]), sec)
			if err != nil || hex.EncodeToString(ki[:]) != w[3] {
				t.Errorf("line %d: generate_key_image = %x, want %s", line, ki, w[3])
			}
		case "check_ring_signature":
			prefix := [32]byte(unhex(t, w[1]))
			ki := [32]byte(unhex(t, w[2]))
			n, err := strconv.Atoi(w[3])
			if err != nil || len(w) != 4+n+2 {
				t.Fatalf("line %d: malformed ring signature line", line)
			}
			pubs := make([][32]byte, n)
			for i := range n {
				pubs[i] = [32]byte(unhex(t, w[4+i]))
			}
			raw := unhex(t, w[4+n])
			if len(raw) != 64*n {
				t.Fatalf("line %d: signature is %d bytes for ring %d", line, len(raw), n)
			}
			sigs := make([][64]byte, n)
			for i := range n {
				sigs[i] = [64]byte(raw[64*i : 64*i+64])
			}
			got := CheckRingSignature(prefix, ki, pubs, sigs)
			if want := w[5+n] == "true"; got != want {
				t.Errorf("line %d: check_ring_signature = %v, want %v", line, got, want)
			}
		default:
			continue
		}
		counts[op]++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"check_scalar": 337, "check_key": 372, "hash_to_scalar": 256, "hash_to_point": 371,
		"hash_to_ec": 256, "generate_key_image": 256, "check_ring_signature": 1024}
	for op, n := range want {
		if counts[op] != n {
			t.Errorf("%s: %d vectors replayed, want %d", op, counts[op], n)
		}
	}
	t.Logf("replayed %v", counts)
}

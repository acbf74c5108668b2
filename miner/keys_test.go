package miner

import (
	"bufio"
	"encoding/hex"
	"os"
	"strconv"
	"strings"
	"testing"

	"filippo.io/edwards25519"

	"github.com/gonero/gonero/crypto"
	"github.com/gonero/gonero/cryptonote"
)

// The Monero project's crypto vectors (Debian's monero-tests package):
// generate_key_derivation, derive_public_key, derive_view_tag,
// hash_to_scalar and secret_key_to_public_key lines, each checked here.
const cryptoVectors = "/usr/share/monero/testdata/crypto/tests.txt"

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func key(t *testing.T, s string) cryptonote.Key { return cryptonote.Key(unhex(t, s)) }

func TestMoneroCryptoVectors(t *testing.T) {
	f, err := os.Open(cryptoVectors)
	if err != nil {
		t.Skipf("Monero's crypto vectors (apt-get install monero-tests): %v", err)
	}
	defer f.Close()
	counts := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		w := strings.Fields(sc.Text())
		if len(w) == 0 {
			continue
		}
		switch w[0] {
		case "hash_to_scalar":
			var data []byte
			if w[1] != "x" {
				data = unhex(t, w[1])
			}
			if got := hex.EncodeToString(crypto.HashToScalar(data).Bytes()); got != w[2] {
				t.Fatalf("hash_to_scalar %s: %s, want %s", w[1], got, w[2])
			}
		case "secret_key_to_public_key":
			s, err := edwards25519.NewScalar().SetCanonicalBytes(unhex(t, w[1]))
			if (err == nil) != (w[2] == "true") {
				t.Fatalf("secret_key_to_public_key %s: scalar accepted=%v, want %s", w[1], err == nil, w[2])
			}
			if err == nil {
				if got := hex.EncodeToString(new(edwards25519.Point).ScalarBaseMult(s).Bytes()); got != w[3] {
					t.Fatalf("secret_key_to_public_key %s: %s, want %s", w[1], got, w[3])
				}
			}
		case "generate_key_derivation":
			pub, err := decodePoint(key(t, w[1]))
			if (err == nil) != (w[3] == "true") {
				t.Fatalf("generate_key_derivation %s: point accepted=%v, want %s", w[1], err == nil, w[3])
			}
			if err == nil {
				s, err := edwards25519.NewScalar().SetCanonicalBytes(unhex(t, w[2]))
				if err != nil {
					t.Fatal(err)
				}
				if got := hex.EncodeToString(func() []byte { d := keyDerivation(pub, s); return d[:] }()); got != w[4] {
					t.Fatalf("generate_key_derivation %s %s: %s, want %s", w[1], w[2], got, w[4])
				}
			}
		case "derive_public_key":
			idx, _ := strconv.ParseUint(w[2], 10, 64)
			base, err := decodePoint(key(t, w[3]))
			if (err == nil) != (w[4] == "true") {
				t.Fatalf("derive_public_key base %s: accepted=%v, want %s", w[3], err == nil, w[4])
			}
			if err == nil {
				if got := derivePublicKey([32]byte(key(t, w[1])), idx, base).String(); got != w[5] {
					t.Fatalf("derive_public_key %s %d: %s, want %s", w[1], idx, got, w[5])
				}
			}
		case "derive_view_tag":
			idx, _ := strconv.ParseUint(w[2], 10, 64)
			if got := hex.EncodeToString([]byte{viewTag([32]byte(key(t, w[1])), idx)}); got != w[3] {
				t.Fatalf("derive_view_tag %s %d: %s, want %s", w[1], idx, got, w[3])
			}
		default:
			continue
		}
		counts[w[0]]++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"hash_to_scalar", "secret_key_to_public_key", "generate_key_derivation", "derive_public_key", "derive_view_tag"} {
		if counts[name] < 50 {
			t.Errorf("only %d %s vectors checked", counts[name], name)
		}
	}
	t.Logf("vectors checked: %v", counts)
}

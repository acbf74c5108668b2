package node

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gonero/gonero/internal/testutil"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/params/blockhashes"
)

// --block-hashes-file as monerod treats its compiled-in list: on mainnet
// only a known release's data (here v0.18.0.0's, taken from the installed
// monerod) are used, anything else is ignored with a warning; testnet and
// stagenet use none; regtest takes any well-formed list (tests);
// --fast-block-sync 0 uses none; a missing file is an error
// (--fast-block-sync 2 is cmd/gonerod's).
func TestBlockHashesFileFlag(t *testing.T) {
	testutil.RequireFile(t, "/usr/bin/monerod", "apt-get install monero")
	bin, err := os.ReadFile("/usr/bin/monerod")
	if err != nil {
		t.Fatal(err)
	}
	real, rel, ok := blockhashes.FindRelease(bin)
	if !ok {
		t.Fatal("no pinned list in /usr/bin/monerod")
	}
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	realPath := write("real.dat", real)
	// The v0.18.0.0 list less its last group: well formed, pinned by no release.
	short := append(append([]byte{}, real[:4]...), real[4:len(real)-64]...)
	short[0]--
	shortPath := write("short.dat", short)
	garbage := write("garbage.dat", []byte("not a list"))

	for _, tc := range []struct {
		name   string
		net    params.Network
		file   string
		fast   bool
		groups int    // -1: an error
		warn   string // in the log
	}{
		{"mainnet pinned", params.Mainnet, realPath, true, rel.Groups, ""},
		{"mainnet unpinned", params.Mainnet, shortPath, true, 0, "no known monero release"},
		{"mainnet fast sync off", params.Mainnet, realPath, false, 0, ""},
		{"testnet", params.Testnet, realPath, true, 0, "no block-hash list for testnet"},
		{"stagenet", params.Stagenet, realPath, true, 0, "no block-hash list for stagenet"},
		{"regtest any list", params.Regtest, shortPath, true, rel.Groups - 1, ""},
		{"regtest malformed", params.Regtest, garbage, true, 0, "not a block-hash list"},
		{"missing file", params.Regtest, filepath.Join(dir, "none"), true, -1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logBuf bytes.Buffer
			log := slog.New(slog.NewTextHandler(&logBuf, nil))
			l, err := loadBlockHashes(&Config{Network: tc.net, BlockHashesFile: tc.file, FastBlockSync: tc.fast}, log)
			if tc.groups < 0 {
				if err == nil {
					t.Fatal("no error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := 0
			if l != nil {
				got = len(l.Groups)
			}
			if got != tc.groups {
				t.Fatalf("%d groups, want %d", got, tc.groups)
			}
			if tc.warn != "" && !strings.Contains(logBuf.String(), tc.warn) {
				t.Fatalf("log %q lacks %q", logBuf.String(), tc.warn)
			}
		})
	}
}

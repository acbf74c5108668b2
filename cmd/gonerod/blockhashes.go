package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/params/blockhashes"
)

// maxBlockHashesFile bounds what --block-hash-file may make the node read:
// the newest mainnet list is 463 KB; 64 MiB covers 1M groups (512M heights).
const maxBlockHashesFile = 64 << 20

// loadBlockHashes reads the block-hash list for fast sync
// (--fast-block-sync 1, --block-hashes-file). monerod compiles its list in;
// gonero reads monero's src/blocks/checkpoints.dat (or a
// monero-blockchain-export --blocksdat file) instead. As monerod, it uses
// one on mainnet only, and there only data whose SHA-256 is a known
// release's (monerod: expected_block_hashes_hash); other data are ignored
// with a warning, like monerod's "Block hash data does not match expected
// hash". testnet and stagenet have no list in monerod. Regtest takes any
// well-formed file: that is how tests give a list for a chain of their own.
func loadBlockHashes(o *options, net params.Network, log *slog.Logger) (*blockhashes.List, error) {
	if o.fastBlockSync > 1 {
		return nil, fmt.Errorf("--fast-block-sync takes 0 or 1, not %d", o.fastBlockSync)
	}
	if o.fastBlockSync == 0 || o.blockHashesFile == "" {
		return nil, nil
	}
	f, err := os.Open(o.blockHashesFile)
	if err != nil {
		return nil, fmt.Errorf("--block-hashes-file: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxBlockHashesFile+1))
	if err != nil {
		return nil, fmt.Errorf("--block-hashes-file: %w", err)
	}
	ignore := func(why string, args ...any) (*blockhashes.List, error) {
		log.Warn("block-hash list ignored: "+why, append([]any{"file", o.blockHashesFile}, args...)...)
		return nil, nil
	}
	if len(data) > maxBlockHashesFile {
		return ignore("file too large", "limit", maxBlockHashesFile)
	}
	switch net {
	case params.Mainnet:
		rel, ok := blockhashes.PinnedRelease(data)
		if !ok {
			return ignore("its SHA-256 is no known monero release's list")
		}
		log.Info("block-hash list of monero " + rel.Version)
	case params.Regtest:
	default:
		return ignore("monerod has no block-hash list for " + net.String())
	}
	l, err := blockhashes.Parse(data)
	if errors.Is(err, blockhashes.ErrFormat) {
		return ignore(err.Error())
	}
	return l, err
}

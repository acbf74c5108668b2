package node

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/gonero/gonero/chain"
	"github.com/gonero/gonero/chaindb"
	"github.com/gonero/gonero/params"
	"github.com/gonero/gonero/params/blockhashes"
	"github.com/gonero/gonero/randomx"
)

func joinPath(elem ...string) string { return filepath.Join(elem...) }

// Store is the opened chain: store, PoW hasher and chain manager. The
// node opens one; the import command opens one alone.
type Store struct {
	net   params.Network
	db    *chaindb.DB
	pow   *randomx.Hasher
	chain *chain.Chain
	log   *slog.Logger
}

// OpenStore opens cfg's chain; blocks, if not nil, hears every block the
// chain checks (the metrics).
func OpenStore(cfg *Config, log *slog.Logger, blocks chain.BlockObserver) (*Store, error) {
	net := cfg.Network
	path := cfg.StorePath()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	// A store written by an older gonerod is upgraded before anything else
	// (minutes on a long chain): say so, every few seconds, as import does.
	var lastReport time.Time
	db, err := chaindb.Open(path, chaindb.Options{Network: net.String(), MigrationProgress: func(done, total uint64) {
		if done == total || time.Since(lastReport) >= 5*time.Second {
			lastReport = time.Now()
			log.Info("upgrading the chain store to this version's layout", "blocks", done, "of", total)
		}
	}})
	if err != nil {
		return nil, fmt.Errorf("opening the chain store %s: %w", path, err)
	}
	// An upgrade, pruning or popped blocks leave free pages that the file
	// keeps (chaindb/compact.go): say how to give many of them back.
	if fi, err := os.Stat(path); err == nil {
		fs := db.FreeStats()
		if free := int64(fs.FreePages+fs.PendingPages) * int64(fs.PageSize); free >= 64<<20 && free*5 >= fi.Size() {
			log.Info("the chain store's file holds free pages: `gonerod compact`, with the node stopped, gives them back",
				"free_MB", free>>20, "file_MB", fi.Size()>>20)
		}
	}
	pow, err := randomx.New(randomx.Options{})
	if err != nil {
		db.Close()
		return nil, err
	}
	list, err := loadBlockHashes(cfg, log)
	if err != nil {
		pow.Close()
		db.Close()
		return nil, err
	}
	c, err := chain.Open(db, chain.Config{Network: net, FixedDifficulty: cfg.FixedDifficulty, PoW: pow, Logger: log, Observer: blocks,
		BlockHashes: list})
	if err != nil {
		pow.Close()
		db.Close()
		return nil, err
	}
	return &Store{net: net, db: db, pow: pow, chain: c, log: log}, nil
}

// Chain is the chain manager.
func (s *Store) Chain() *chain.Chain { return s.chain }

// Close closes the hasher and the store.
func (s *Store) Close() {
	s.pow.Close()
	if err := s.db.Close(); err != nil {
		s.log.Error("closing the store", "err", err)
	}
}

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
func loadBlockHashes(cfg *Config, log *slog.Logger) (*blockhashes.List, error) {
	if !cfg.FastBlockSync || cfg.BlockHashesFile == "" {
		return nil, nil
	}
	f, err := os.Open(cfg.BlockHashesFile)
	if err != nil {
		return nil, fmt.Errorf("--block-hashes-file: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxBlockHashesFile+1))
	if err != nil {
		return nil, fmt.Errorf("--block-hashes-file: %w", err)
	}
	ignore := func(why string, args ...any) (*blockhashes.List, error) {
		log.Warn("block-hash list ignored: "+why, append([]any{"file", cfg.BlockHashesFile}, args...)...)
		return nil, nil
	}
	if len(data) > maxBlockHashesFile {
		return ignore("file too large", "limit", maxBlockHashesFile)
	}
	switch cfg.Network {
	case params.Mainnet:
		rel, ok := blockhashes.PinnedRelease(data)
		if !ok {
			return ignore("its SHA-256 is no known monero release's list")
		}
		log.Info("block-hash list of monero " + rel.Version)
	case params.Regtest:
	default:
		return ignore("monerod has no block-hash list for " + cfg.Network.String())
	}
	l, err := blockhashes.Parse(data)
	if errors.Is(err, blockhashes.ErrFormat) {
		return ignore(err.Error())
	}
	return l, err
}

package consensus

import (
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/gonero/gonero/internal/u128"
)

// Sentinel errors, one per rule. Functions return the detailed types below,
// which unwrap to these, so callers can test with errors.Is and read the
// numbers with errors.As.
var (
	ErrBlockTooBig       = errors.New("block weight exceeds twice the median weight")
	ErrMinerTxOverspend  = errors.New("miner tx outputs exceed block reward plus fees")
	ErrMinerTxNotExact   = errors.New("miner tx outputs differ from block reward plus fees")
	ErrMinerTxBelowFees  = errors.New("miner tx outputs are less than the fees")
	ErrWrongMajorVersion = errors.New("block major version differs from the hard-fork version")
	ErrVoteTooLow        = errors.New("block minor version (vote) is below the hard-fork version")
	ErrTimestampTooNew   = errors.New("block timestamp is too far in the future")
	ErrTimestampTooOld   = errors.New("block timestamp is below the median of recent blocks")
	ErrInsufficientPoW   = errors.New("proof-of-work hash does not meet the difficulty")
)

// BlockTooBigError: get_block_reward refuses a block heavier than twice the
// median (Median is after the full-reward-zone floor).
type BlockTooBigError struct {
	Weight, Median uint64
}

func (e *BlockTooBigError) Error() string {
	return fmt.Sprintf("%v: weight %d > 2 * %d", ErrBlockTooBig, e.Weight, e.Median)
}

func (e *BlockTooBigError) Unwrap() error { return ErrBlockTooBig }

// MinerTxAmountError: blockchain.cpp validate_miner_transaction rejected the
// sum of the miner tx outputs. Err is ErrMinerTxOverspend, ErrMinerTxNotExact
// or ErrMinerTxBelowFees.
type MinerTxAmountError struct {
	Outputs, Reward, Fees uint64
	Err                   error
}

func (e *MinerTxAmountError) Error() string {
	return fmt.Sprintf("%v: outputs %d, reward %d + fees %d", e.Err, e.Outputs, e.Reward, e.Fees)
}

func (e *MinerTxAmountError) Unwrap() error { return e.Err }

// VersionError: hardfork.cpp HardFork::check rejected the header versions.
// Err is ErrWrongMajorVersion or ErrVoteTooLow.
type VersionError struct {
	Major, Minor, Expected uint8
	Err                    error
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("%v: major %d, minor %d, expected version %d", e.Err, e.Major, e.Minor, e.Expected)
}

func (e *VersionError) Unwrap() error { return e.Err }

// TimestampError: blockchain.cpp check_block_timestamp rejected the block.
// Bound is the limit it crossed: local time + BlockFutureTimeLimit for
// ErrTimestampTooNew, the median of the previous TimestampCheckWindow
// timestamps for ErrTimestampTooOld.
type TimestampError struct {
	Timestamp, Bound uint64
	Err              error
}

func (e *TimestampError) Error() string {
	rel := ">"
	if e.Err == ErrTimestampTooOld {
		rel = "<"
	}
	return fmt.Sprintf("%v: %d %s %d", e.Err, e.Timestamp, rel, e.Bound)
}

func (e *TimestampError) Unwrap() error { return e.Err }

// PoWError is what a caller reports when CheckPoWHash fails
// (blockchain.cpp handle_block_to_main_chain: "does not have enough proof of
// work").
type PoWError struct {
	Height     uint64
	Hash       [32]byte
	Difficulty u128.U128
}

func (e *PoWError) Error() string {
	return fmt.Sprintf("%v: height %d, hash %s, difficulty %s", ErrInsufficientPoW, e.Height, hex.EncodeToString(e.Hash[:]), e.Difficulty)
}

func (e *PoWError) Unwrap() error { return ErrInsufficientPoW }

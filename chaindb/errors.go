package chaindb

import (
	"errors"
	"fmt"

	"github.com/gonero/gonero/cryptonote"
)

var (
	// ErrNotFound is matched (errors.Is) by every lookup that finds nothing;
	// the error itself says what was looked up.
	ErrNotFound = errors.New("chaindb: not found")

	// ErrEmpty is returned by Top and PopTop on a store without blocks.
	ErrEmpty = errors.New("chaindb: the chain is empty")

	// ErrInUse is returned by Open when another process holds the file lock
	// for longer than Options.LockTimeout.
	ErrInUse = errors.New("chaindb: database is in use by another process")
)

// notFound is an ErrNotFound that names what was looked up.
type notFound struct{ msg string }

func (e *notFound) Error() string        { return e.msg }
func (e *notFound) Is(target error) bool { return target == ErrNotFound }

func notFoundf(format string, args ...any) error {
	return &notFound{msg: "chaindb: " + fmt.Sprintf(format, args...)}
}

// ErrHeightMismatch refuses an Append whose height is not the chain height.
type ErrHeightMismatch struct {
	Got  uint64 // height of the offered block
	Want uint64 // current chain height, the only height that may be appended
}

func (e *ErrHeightMismatch) Error() string {
	return fmt.Sprintf("chaindb: cannot append a block at height %d: the chain has %d blocks, so the next must be at height %d",
		e.Got, e.Want, e.Want)
}

// ErrPrevMismatch refuses an Append whose prev hash is not the current top hash.
type ErrPrevMismatch struct {
	Height uint64          // height of the offered block
	Got    cryptonote.Hash // its prev hash
	Want   cryptonote.Hash // hash of the current top block
}

func (e *ErrPrevMismatch) Error() string {
	return fmt.Sprintf("chaindb: cannot append block at height %d: its prev hash %s is not the top block hash %s",
		e.Height, e.Got, e.Want)
}

// ErrDuplicateBlock refuses an Append of a block whose hash is already on the chain.
type ErrDuplicateBlock struct {
	Hash   cryptonote.Hash
	Height uint64 // where the block already is
}

func (e *ErrDuplicateBlock) Error() string {
	return fmt.Sprintf("chaindb: block %s is already on the chain at height %d", e.Hash, e.Height)
}

// ErrDuplicateTx refuses an Append carrying a tx that is already on the chain
// or appears twice in the block; storing it again would break the tx index
// when either copy is popped.
type ErrDuplicateTx struct {
	Hash     cryptonote.Hash
	Existing TxLocation // where the tx already is (may be in the offered block itself)
}

func (e *ErrDuplicateTx) Error() string {
	return fmt.Sprintf("chaindb: tx %s is already at height %d, index %d", e.Hash, e.Existing.Height, e.Existing.Index)
}

// ErrKeyImageSpent refuses an Append (or a reorganisation) whose block spends
// a key image the main chain has already spent, or spends one key image twice
// itself. Nothing is written.
type ErrKeyImageSpent struct {
	KeyImage cryptonote.Key
	Height   uint64 // the block that spent it first (the offered block's height when InBlock)
	InBlock  bool   // spent twice inside the offered block
}

func (e *ErrKeyImageSpent) Error() string {
	if e.InBlock {
		return fmt.Sprintf("chaindb: key image %s is spent twice in the block at height %d", e.KeyImage, e.Height)
	}
	return fmt.Sprintf("chaindb: key image %s is already spent by the block at height %d", e.KeyImage, e.Height)
}

// ErrInvalidRecord refuses a BlockRecord that contradicts itself, such as a
// NumTxes that differs from the number of txs supplied.
type ErrInvalidRecord struct {
	Field  string // the offending BlockMeta or BlockRecord field
	Reason string
}

func (e *ErrInvalidRecord) Error() string {
	return fmt.Sprintf("chaindb: invalid block record: %s: %s", e.Field, e.Reason)
}

// ErrCorrupt reports a stored value or index that cannot be decoded or that
// disagrees with another part of the store.
type ErrCorrupt struct {
	Bucket string
	Key    []byte
	Err    error
}

func (e *ErrCorrupt) Error() string {
	return fmt.Sprintf("chaindb: corrupt store: bucket %s, key %x: %v", e.Bucket, e.Key, e.Err)
}

func (e *ErrCorrupt) Unwrap() error { return e.Err }

func corrupt(bucket []byte, key []byte, err error) error {
	return &ErrCorrupt{Bucket: string(bucket), Key: append([]byte(nil), key...), Err: err}
}

func corruptf(bucket []byte, key []byte, format string, args ...any) error {
	return corrupt(bucket, key, fmt.Errorf(format, args...))
}

// ErrSchemaVersion refuses to open a store written with another layout.
type ErrSchemaVersion struct {
	Path  string
	Found uint32
	Want  uint32
}

func (e *ErrSchemaVersion) Error() string {
	return fmt.Sprintf("chaindb: %s has schema version %d but this build reads version %d", e.Path, e.Found, e.Want)
}

// ErrNetworkMismatch refuses to open a store created for another network.
type ErrNetworkMismatch struct {
	Path      string
	Stored    string // network recorded at creation
	Requested string // Options.Network
}

func (e *ErrNetworkMismatch) Error() string {
	return fmt.Sprintf("chaindb: %s holds a %q chain; refusing to open it as %q", e.Path, e.Stored, e.Requested)
}

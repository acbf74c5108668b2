package consensus

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/gonero/gonero/crypto"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/boundedcache"
)

// The transaction rules of monerod v0.18.5, as pure functions of a
// transaction and what the chain knows. They are split the way monerod
// splits them, because the split decides which flag a refusal carries and
// which rules a transaction inside a block skips. A transaction entering
// the pool meets them in this order, monerod 0.18.5.3's
// (tx_memory_pool::add_tx, which since 0.18.5.2 runs the pool's own rules,
// whose refusals are no offence of the relaying peer, before the
// expensive ver_non_input_consensus of tx_verification_utils.cpp:
// monero-project/monero PR #11304):
//
//	CheckTxPoolEntry  the pool's own rules: fee, tx extra size, unlock time, the pool's key images
//	CheckTxPre        blob size, version
//	CheckTxWeight     the transaction weight limit (from hard fork 8)
//	CheckTxSemantic   core::check_tx_semantic: inputs, outputs, sums, key images
//	CheckTxOutputs    Blockchain::check_tx_outputs
//	CheckRctSemantics ringct semantics: sizes, balance, range proofs (rct.go; invalid_input)
//	CheckTxInputs     Blockchain::check_tx_inputs: ring sizes, versions, order, spends, rings (inputs.go)
//	VerifyTxSignatures the ring signatures, MLSAG and CLSAG (inputs.go)
//
// A transaction of a block meets the same rules but the pool's, in the same
// order.

// Transaction limits (cryptonote_config.h).
const (
	MaxTxSize                   = 1_000_000 // CRYPTONOTE_MAX_TX_SIZE: bytes of one transaction blob
	CoinbaseBlobReservedSize    = 600       // CRYPTONOTE_COINBASE_BLOB_RESERVED_SIZE
	TxSpendableAge              = 10        // CRYPTONOTE_DEFAULT_TX_SPENDABLE_AGE
	MaxBlockNumber              = 500_000_000
	LockedTxAllowedDeltaBlocks  = 1
	LockedTxAllowedDeltaSeconds = 60 // V1; from hard fork 2 it is the v2 target, 120
	BulletproofMaxOutputs       = 16
	FeePerKB                    = 2_000_000_000 // FEE_PER_KB, before hard fork 4
	// MaxTxExtraSize is MAX_TX_EXTRA_SIZE (monerod 0.18.2.1 on): a pool rule
	// only, a block may hold a transaction with a larger extra. 1060 bytes
	// are the mandatory content of a 16-output transaction (547), a custom
	// tag and 32 bytes of custom data per recipient.
	MaxTxExtraSize = 1060
)

// Hard-fork versions of the transaction rules (cryptonote_config.h HF_VERSION_*).
const (
	VersionDynamicFee      = 4 // v2 (RingCT) transactions; dynamic per-kB fee
	VersionEnforceRct      = 6 // v1 only when an input cannot mix
	VersionSortedInputs    = 7
	VersionPerByteFee      = 8 // per-byte fee; transaction weight limit for block txs too
	VersionSmallerBP       = 10
	VersionMinMixin10      = 8
	VersionMinMixin15      = 15
	VersionMinMixin6       = 7
	VersionMinMixin4       = 6
	VersionSameMixin       = 12
	VersionMin2Outputs     = 12
	VersionEnforceMinAge   = 12
	VersionMinV2Coinbase   = 12
	VersionCLSAG           = 13
	VersionDeterministicUT = 13 // time-based unlocks against the adjusted block time
	VersionViewTags        = 15
	VersionBulletproofPlus = 15
)

// CheckTxPre is rules 1-3 of ver_non_input_consensus: a blob over
// MaxTxSize is too big, and the version must be 1..max (1 before hard fork
// 4, HF_VERSION_DYNAMIC_FEE, else 2).
func CheckTxPre(tx *cryptonote.Transaction, blobSize int, hf uint8) error {
	if blobSize > MaxTxSize {
		return txErr(RuleTxTooBig, FlagTooBig, fmt.Errorf("%d bytes, at most %d", blobSize, MaxTxSize))
	}
	maxVersion := uint64(2)
	if hf < VersionDynamicFee {
		maxVersion = 1
	}
	if tx.Version == 0 || tx.Version > maxVersion {
		return txErr(RuleTxVersion, 0, fmt.Errorf("version %d, max is %d", tx.Version, maxVersion))
	}
	return nil
}

// CheckTxWeight is rule 4 of ver_non_input_consensus: from hard fork 8 a
// transaction weighs at most TxWeightLimit, inside a block or not.
func CheckTxWeight(weight uint64, hf uint8) error {
	if limit := TxWeightLimit(hf); hf >= VersionPerByteFee && weight > limit {
		return txErr(RuleTxTooHeavy, FlagTooBig, fmt.Errorf("weight %d, maximum %d", weight, limit))
	}
	return nil
}

// CheckTxSemantic is core::check_tx_semantic, with the flags monerod 0.18.5
// sets (0.18.0 set none, and also refused a transaction weighing as much as
// the block weight limit less 600; rule 4, CheckTxWeight, replaced that).
func CheckTxSemantic(tx *cryptonote.Transaction, hf uint8) error {
	if len(tx.Inputs) == 0 {
		return txErr(RuleNoInputs, FlagInvalidInput, nil)
	}
	if err := checkInputTypes(tx); err != nil {
		return txErr(RuleInputTypes, FlagInvalidInput, err)
	}
	if err := checkOutsValid(tx); err != nil {
		return txErr(RuleInvalidOutputs, FlagInvalidOutput, err)
	}
	if tx.Version > 1 {
		if tx.Rct == nil || len(tx.Rct.OutPk) != len(tx.Outputs) {
			return txErr(RuleOutPkCount, FlagInvalidOutput, nil)
		}
	}
	in, inOver := inputSum(tx)
	out, outOver := tx.OutputSum()
	if inOver || outOver {
		return txErr(RuleMoneyOverflow, FlagOverspend, nil)
	}
	if tx.Version == 1 && in <= out {
		return txErr(RuleWrongAmounts, FlagOverspend, fmt.Errorf("ins %d, outs %d", in, out))
	}
	seen := make(map[cryptonote.Key]struct{}, len(tx.Inputs))
	for _, txin := range tx.Inputs {
		ki := txin.(cryptonote.TxInToKey).KeyImage
		if _, dup := seen[ki]; dup {
			return txErr(RuleKeyImageTwice, FlagInvalidInput, fmt.Errorf("key image %s", ki))
		}
		seen[ki] = struct{}{}
	}
	if hf >= VersionMinMixin4 {
		for i, txin := range tx.Inputs {
			offs := txin.(cryptonote.TxInToKey).KeyOffsets
			for n := 1; n < len(offs); n++ {
				if offs[n] == 0 {
					return txErr(RuleDuplicateRingMember, FlagInvalidInput, fmt.Errorf("input %d, ring member %d", i, n))
				}
			}
		}
	}
	for i, txin := range tx.Inputs {
		ki := txin.(cryptonote.TxInToKey).KeyImage
		if !keyImageInDomain(ki) {
			return txErr(RuleKeyImageDomain, FlagInvalidInput, fmt.Errorf("input %d, key image %s", i, ki))
		}
	}
	if err := CheckOutputTypes(tx, hf); err != nil {
		return txErr(RuleSemanticOutputTypes, FlagInvalidOutput, err)
	}
	return nil
}

// keyImageInDomain is check_tx_inputs_keyimages_domain: KI is not the
// identity (refused here from monerod 0.18.4.3, commit 7b5319757; 0.18.0 left it to the
// signature checks) and ℓ·KI is the identity.
func keyImageInDomain(ki cryptonote.Key) bool {
	if ki == (cryptonote.Key{1}) {
		return false
	}
	if _, ok := keyImagesInDomain.Get(ki); ok {
		return true
	}
	p, err := crypto.DecodePoint(ki[:])
	if err != nil {
		return false
	}
	if !crypto.IsInPrimeSubgroup(p) {
		return false
	}
	keyImagesInDomain.Put(ki, struct{}{})
	return true
}

// keyImagesInDomain remembers key images that passed keyImageInDomain, a
// function of their 32 bytes alone: a transaction's semantics are checked
// when it is verified ahead (the pool, chain.Preverify) and again in its
// block, and ℓ·KI (some 90 µs) was a tenth of that check's cost twice
// over. Only passes are kept, so a hostile key image costs its check
// every time, as before.
var keyImagesInDomain = boundedcache.New[cryptonote.Key, struct{}](keyImageDomainCacheSize, 0, nil)

// keyImageDomainCacheSize bounds keyImagesInDomain (about 100 bytes an
// entry): some thousands of transactions' inputs.
const keyImageDomainCacheSize = 1 << 14

// checkInputTypes is check_inputs_types_supported: to_key inputs only.
func checkInputTypes(tx *cryptonote.Transaction) error {
	for i, in := range tx.Inputs {
		if _, ok := in.(cryptonote.TxInToKey); !ok {
			return fmt.Errorf("input %d is %T, only to_key inputs can be spent", i, in)
		}
	}
	return nil
}

// checkOutsValid is check_outs_valid: every output is to a (tagged) key that
// decodes as a point, and a v1 output carries a positive amount.
func checkOutsValid(tx *cryptonote.Transaction) error {
	for i, o := range tx.Outputs {
		key, ok := OutputKey(o)
		if !ok {
			return fmt.Errorf("output %d: %T is not an output to a key", i, o.Target)
		}
		if tx.Version == 1 && o.Amount == 0 {
			return fmt.Errorf("output %d: zero amount", i)
		}
		if _, err := crypto.DecodePoint(key[:]); err != nil {
			return fmt.Errorf("output %d: key %s is not a valid point", i, key)
		}
	}
	return nil
}

// OutputKey is get_output_public_key: the one-time key of a to_key or
// tagged_key output.
func OutputKey(o cryptonote.TxOut) (cryptonote.Key, bool) {
	switch t := o.Target.(type) {
	case cryptonote.TxOutToKey:
		return t.Key, true
	case cryptonote.TxOutToTaggedKey:
		return t.Key, true
	}
	return cryptonote.Key{}, false
}

func inputSum(tx *cryptonote.Transaction) (sum uint64, overflow bool) {
	for _, in := range tx.Inputs {
		k, ok := in.(cryptonote.TxInToKey)
		if !ok {
			continue
		}
		s := sum + k.Amount
		if s < sum {
			overflow = true
		}
		sum = s
	}
	return sum, overflow
}

// TxFee is get_tx_fee, the fee a transaction pays: txnFee for v2; for v1
// Σin − Σout, each sum wrapping as monerod's does, and 0 when an input is
// not to_key or Σin < Σout. The pool reads it before any rule has looked at
// the transaction (CheckTxPoolEntry); for a transaction that passed
// CheckTxSemantic it is the true Σin − Σout.
func TxFee(tx *cryptonote.Transaction) uint64 {
	if tx.Version > 1 {
		if tx.Rct == nil {
			return 0
		}
		return tx.Rct.TxnFee
	}
	var in, out uint64
	for _, txin := range tx.Inputs {
		k, ok := txin.(cryptonote.TxInToKey)
		if !ok {
			return 0
		}
		in += k.Amount
	}
	for _, o := range tx.Outputs {
		out += o.Amount
	}
	if in < out {
		return 0
	}
	return in - out
}

// CheckOutputTypes is cryptonote_format_utils check_output_types: to_key
// before hard fork 15, tagged_key after it, either (but one kind per
// transaction) at 15.
func CheckOutputTypes(tx *cryptonote.Transaction, hf uint8) error {
	for i, o := range tx.Outputs {
		_, plain := o.Target.(cryptonote.TxOutToKey)
		_, tagged := o.Target.(cryptonote.TxOutToTaggedKey)
		switch {
		case hf > VersionViewTags && !tagged:
			return fmt.Errorf("output %d: from hard fork %d outputs must carry a view tag", i, VersionViewTags+1)
		case hf < VersionViewTags && !plain:
			return fmt.Errorf("output %d: before hard fork %d outputs must be to_key", i, VersionViewTags)
		case hf == VersionViewTags:
			if !plain && !tagged {
				return fmt.Errorf("output %d: unsupported output type", i)
			}
			_, firstPlain := tx.Outputs[0].Target.(cryptonote.TxOutToKey)
			if plain != firstPlain {
				return fmt.Errorf("output %d: outputs of one transaction must all be of one type", i)
			}
		}
	}
	return nil
}

// TxWeightLimit is get_transaction_weight_limit: half the minimum block
// weight from hard fork 8, the whole of it before, less the coinbase
// reserve.
func TxWeightLimit(hf uint8) uint64 {
	if hf >= VersionPerByteFee {
		return FullRewardZone(hf)/2 - CoinbaseBlobReservedSize
	}
	return FullRewardZone(hf) - CoinbaseBlobReservedSize
}

// PoolEntry is what tx_memory_pool::add_tx needs besides the transaction.
type PoolEntry struct {
	Weight      uint64
	KeptByBlock bool // the tx came back from a popped block: none of these rules apply
	// FeeOK is Blockchain::check_fee for this weight and fee; it is not
	// consulted for a transaction kept by block.
	FeeOK func(weight, fee uint64) bool
	// KeyImageInPool reports a key image already used by a pool transaction
	// (not consulted for a transaction kept by block).
	KeyImageInPool func(cryptonote.Key) bool
}

// CheckTxPoolEntry is tx_memory_pool::add_tx's first rules, in its order
// (monerod 0.18.5.2 on): the fee (TxFee, which a v1 transaction spending
// more than it has, or an input that is not to_key, makes 0), the size of
// the tx extra (MaxTxExtraSize), a zero unlock time, then the pool's key
// images. They come before every other rule, so a v1 transaction whose
// outputs match its inputs is refused for its fee, not its amounts. Every
// refusal here is a no-drop offence (TxError.NoDropOffense). It returns
// the fee.
func CheckTxPoolEntry(tx *cryptonote.Transaction, e PoolEntry) (uint64, error) {
	soft := func(rule Rule, flags TxFlags, err error) error {
		return &TxError{Rule: rule, Flags: flags, Err: err, NoDropOffense: true}
	}
	fee := TxFee(tx)
	if e.KeptByBlock {
		return fee, nil
	}
	if e.FeeOK != nil && !e.FeeOK(e.Weight, fee) {
		return 0, soft(RuleFeeTooLow, FlagFeeTooLow, fmt.Errorf("fee %d for weight %d", fee, e.Weight))
	}
	if len(tx.Extra) > MaxTxExtraSize {
		return 0, soft(RuleTxExtraTooBig, FlagTxExtraTooBig, fmt.Errorf("%d bytes, the limit is %d", len(tx.Extra), MaxTxExtraSize))
	}
	if tx.UnlockTime != 0 {
		return 0, soft(RuleNonzeroUnlockTime, FlagNonzeroUnlockTime, fmt.Errorf("unlock time %d", tx.UnlockTime))
	}
	if e.KeyImageInPool != nil {
		for _, in := range tx.Inputs {
			if k, ok := in.(cryptonote.TxInToKey); ok && e.KeyImageInPool(k.KeyImage) {
				ki := k.KeyImage
				return 0, soft(RuleKeyImageInPool, FlagDoubleSpend, fmt.Errorf("key image %s", ki))
			}
		}
	}
	return fee, nil
}

// ErrRctTypeNotAllowed is returned for a RingCT type outside its hard forks.
var ErrRctTypeNotAllowed = errors.New("RingCT type not allowed at this hard fork")

// CheckTxOutputs is Blockchain::check_tx_outputs (every refusal is
// invalid_output): decomposed v1 amounts from hard fork 2, zero v2 amounts
// from 3, output keys that decode from 4, RingCT types by hard fork, and
// output types.
func CheckTxOutputs(tx *cryptonote.Transaction, hf uint8, grandfathered bool) error {
	fail := func(rule Rule, err error) error { return txErr(rule, FlagInvalidOutput, err) }
	if hf >= 2 && tx.Version == 1 {
		for i, o := range tx.Outputs {
			if !IsDecomposedAmount(o.Amount) {
				return fail(RuleAmountNotDecomposed, fmt.Errorf("output %d: %d", i, o.Amount))
			}
		}
	}
	if hf >= 3 && tx.Version >= 2 {
		for i, o := range tx.Outputs {
			if o.Amount != 0 {
				return fail(RuleV2AmountNotZero, fmt.Errorf("output %d: %d", i, o.Amount))
			}
		}
	}
	if hf >= 4 {
		for i, o := range tx.Outputs {
			key, ok := OutputKey(o)
			if !ok {
				return fail(RuleOutputNotToKey, fmt.Errorf("output %d", i))
			}
			if _, err := crypto.DecodePoint(key[:]); err != nil {
				return fail(RuleOutputKeyInvalid, fmt.Errorf("output %d", i))
			}
		}
	}
	if tx.Version >= 2 && tx.Rct != nil {
		if err := CheckRctType(tx.Rct, hf, grandfathered); err != nil {
			return fail(RuleRctTypeNotAllowed, err)
		}
	}
	if err := CheckOutputTypes(tx, hf); err != nil {
		return fail(RuleOutputTypes, err)
	}
	return nil
}

// CheckRctType is the RingCT-type part of check_tx_outputs: Bulletproofs
// from 8, Borromean until 8, Bulletproof2 from 10, Bulletproof until 10,
// CLSAG from 13, types up to Bulletproof2 until 13 (but the two grandfathered
// mainnet transactions), Bulletproof+ from 15, Bulletproofs until 15.
func CheckRctType(rv *cryptonote.RctSig, hf uint8, grandfathered bool) error {
	t := rv.Type
	hasBP := rv.Prunable != nil && len(rv.Prunable.Bulletproofs) > 0
	hasBPPlus := rv.Prunable != nil && len(rv.Prunable.BulletproofsPlus) > 0
	isBP := t == cryptonote.RctTypeBulletproof || t == cryptonote.RctTypeBulletproof2 || t == cryptonote.RctTypeCLSAG
	switch {
	case hf < VersionPerByteFee && (isBP || hasBP):
		return fmt.Errorf("%w: bulletproofs are not allowed before hard fork 8", ErrRctTypeNotAllowed)
	case hf > VersionPerByteFee && (t == cryptonote.RctTypeFull || t == cryptonote.RctTypeSimple):
		return fmt.Errorf("%w: Borromean range proofs are not allowed after hard fork 8", ErrRctTypeNotAllowed)
	case hf < VersionSmallerBP && t == cryptonote.RctTypeBulletproof2:
		return fmt.Errorf("%w: type 4 is not allowed before hard fork %d", ErrRctTypeNotAllowed, VersionSmallerBP)
	case hf > VersionSmallerBP && t == cryptonote.RctTypeBulletproof:
		return fmt.Errorf("%w: type 3 is not allowed from hard fork %d", ErrRctTypeNotAllowed, VersionSmallerBP+1)
	case hf < VersionCLSAG && t == cryptonote.RctTypeCLSAG:
		return fmt.Errorf("%w: type 5 is not allowed before hard fork %d", ErrRctTypeNotAllowed, VersionCLSAG)
	case hf > VersionCLSAG && t <= cryptonote.RctTypeBulletproof2 && !grandfathered:
		return fmt.Errorf("%w: type %d is not allowed from hard fork %d", ErrRctTypeNotAllowed, t, VersionCLSAG+1)
	case hf < VersionBulletproofPlus && (t == cryptonote.RctTypeBulletproofPlus || hasBPPlus):
		return fmt.Errorf("%w: bulletproofs plus are not allowed before hard fork %d", ErrRctTypeNotAllowed, VersionBulletproofPlus)
	case hf > VersionBulletproofPlus && isBP:
		return fmt.Errorf("%w: bulletproofs are not allowed after hard fork %d", ErrRctTypeNotAllowed, VersionBulletproofPlus)
	}
	return nil
}

// grandfatheredMLSAG are the two mainnet transactions of RingCT type ≤ 4
// that entered blocks after hard fork 13 (they were in the pool before the
// fork).
var grandfatheredMLSAG = map[cryptonote.Hash]bool{
	cryptonote.MustParseHash("c5151944f0583097ba0c88cd0f43e7fabb3881278aa2f73b3b0a007c5d34e910"): true,
	cryptonote.MustParseHash("6f2f117cde6fbcf8d4a6ef8974fcac744726574ac38cf25d3322c996b21edd4c"): true,
}

// IsGrandfatheredMLSAG says whether id is one of the two mainnet
// transactions of RingCT type ≤ 4 allowed after hard fork 13.
func IsGrandfatheredMLSAG(id cryptonote.Hash) bool { return grandfatheredMLSAG[id] }

// IsDecomposedAmount is is_valid_decomposed_amount: d·10^k with d in 1..9
// and k in 0..18, or 10^19.
func IsDecomposedAmount(a uint64) bool {
	if a == 0 {
		return false
	}
	if a == 10_000_000_000_000_000_000 {
		return true
	}
	for a%10 == 0 {
		a /= 10
	}
	return a <= 9
}

// keyImageLess reports a < b in memcmp order (check_tx_inputs' sort rule).
func keyImageLess(a, b cryptonote.Key) bool { return bytes.Compare(a[:], b[:]) < 0 }

package miner

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"

	"filippo.io/edwards25519"

	"github.com/gonero/gonero/address"
	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/cryptonote"
)

// Hard-fork versions the miner transaction's shape depends on
// (cryptonote_config.h).
const (
	// viewTagsVersion: outputs are txout_to_tagged_key from here.
	viewTagsVersion = 15
	// minMiningVersion: the oldest version this miner builds blocks for.
	// From 12 the proof of work is RandomX (older ones use CryptoNight,
	// which gonero does not implement), the reward penalty uses the
	// effective median that chain.NextBlock reports, and a v2 miner
	// transaction with one output is the rule.
	minMiningVersion = consensus.RandomXVersion
)

// Extra-field tags (tx_extra.h).
const (
	extraTagPubKey = 0x01
	extraTagNonce  = 0x02
)

// ErrVersionTooOld is returned for a block version this miner cannot build.
var ErrVersionTooOld = errors.New("mining blocks older than hard fork 12 (CryptoNight proof of work) is not supported")

// txKey is the transaction's random secret r.
type txKey struct{ r *edwards25519.Scalar }

func newTxKey(rnd io.Reader) (txKey, error) {
	if rnd == nil {
		rnd = rand.Reader
	}
	var wide [64]byte
	if _, err := io.ReadFull(rnd, wide[:]); err != nil {
		return txKey{}, fmt.Errorf("random transaction key: %w", err)
	}
	r, err := edwards25519.NewScalar().SetUniformBytes(wide[:])
	if err != nil {
		return txKey{}, err
	}
	return txKey{r: r}, nil
}

// buildMinerTx is construct_miner_tx for versions >= 12: a v2 transaction
// with the gen input at height, unlock time height + 60, one output of
// amount to a one-time key of to (tagged with a view tag from version 15),
// RingCT type null, and extra = tx public key ‖ extra nonce (monerod's
// generateblocks reserves one zero byte of nonce; an empty nonce adds no
// field). Integrated addresses are mined to as their standard address, as
// monerod does; a subaddress gets R = r·D and D = 8·r·C (its own spend and
// view keys), which its wallet finds through its subaddress table.
func buildMinerTx(height, amount uint64, to address.Address, version uint8, key txKey, extraNonce []byte) (cryptonote.Transaction, error) {
	if version < minMiningVersion {
		return cryptonote.Transaction{}, ErrVersionTooOld
	}
	if len(extraNonce) > 255 {
		return cryptonote.Transaction{}, fmt.Errorf("extra nonce of %d bytes: at most 255", len(extraNonce))
	}
	spend, err := decodePoint(to.Spend)
	if err != nil {
		return cryptonote.Transaction{}, fmt.Errorf("spend key: %w", err)
	}
	view, err := decodePoint(to.View)
	if err != nil {
		return cryptonote.Transaction{}, fmt.Errorf("view key: %w", err)
	}
	var txPub *edwards25519.Point
	if to.Kind == address.Subaddress {
		txPub = new(edwards25519.Point).ScalarMult(key.r, spend)
	} else {
		txPub = new(edwards25519.Point).ScalarBaseMult(key.r)
	}
	derivation := keyDerivation(view, key.r)
	const outIndex = 0
	oneTime := derivePublicKey(derivation, outIndex, spend)
	var target cryptonote.TxOutTarget = cryptonote.TxOutToKey{Key: oneTime}
	if version >= viewTagsVersion {
		target = cryptonote.TxOutToTaggedKey{Key: oneTime, ViewTag: viewTag(derivation, outIndex)}
	}
	extra := append([]byte{extraTagPubKey}, txPub.Bytes()...)
	if len(extraNonce) > 0 {
		// The length is a varint (add_extra_nonce_to_tx_extra since
		// monerod 0.18.4; 0.18.0 wrote one byte, which broke nonces of
		// 128 bytes or more).
		extra = append(cryptonote.AppendVarint(append(extra, extraTagNonce), uint64(len(extraNonce))), extraNonce...)
	}
	return cryptonote.Transaction{
		Version:    2,
		UnlockTime: height + consensus.MinedMoneyUnlockWindow,
		Inputs:     []cryptonote.TxIn{cryptonote.TxInGen{Height: height}},
		Outputs:    []cryptonote.TxOut{{Amount: amount, Target: target}},
		Extra:      extra,
		Rct:        &cryptonote.RctSig{Type: cryptonote.RctTypeNull},
	}, nil
}

// rewardedMinerTx builds the miner transaction of a block whose other
// transactions weigh txsWeight and pay fees: its amount is the block reward
// for the block's weight plus the fees, and the block's weight includes the
// miner transaction's own, which depends on the amount's varint length. Like create_block_template it iterates to a
// fixed point; with the full-reward zone of 300 kB against a ~100-byte
// block the first try is already exact.
func rewardedMinerTx(height uint64, to address.Address, version uint8, median, generated, txsWeight, fees uint64, key txKey, extraNonce []byte) (cryptonote.Transaction, uint64, error) {
	weight := uint64(0)
	for range 10 {
		reward, err := consensus.BlockReward(median, txsWeight+weight, generated, version)
		if err != nil {
			return cryptonote.Transaction{}, 0, err
		}
		tx, err := buildMinerTx(height, reward+fees, to, version, key, extraNonce)
		if err != nil {
			return cryptonote.Transaction{}, 0, err
		}
		w := tx.Weight(len(tx.Serialize()))
		if again, _ := consensus.BlockReward(median, txsWeight+w, generated, version); again == reward {
			return tx, reward + fees, nil
		}
		weight = w
	}
	return cryptonote.Transaction{}, 0, errors.New("miner transaction weight and reward do not settle")
}

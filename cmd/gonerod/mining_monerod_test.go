package main

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"strconv"
	"testing"
	"time"

	"github.com/gonero/gonero/consensus"
	"github.com/gonero/gonero/cryptonote"
	"github.com/gonero/gonero/internal/monerodlab"
	"github.com/gonero/gonero/internal/u128"
	"github.com/gonero/gonero/randomx"
)

// A mining pool in front of gonerod, end to end through the real binary's
// wiring: the pool asks gonerod for a block template, writes its own extra
// nonce into the reserved bytes, finds a nonce with RandomX (checked
// against monerod's calc_pow) and submits the block to gonerod; gonerod
// adds it and relays it, and monerod, connected to gonerod by P2P only,
// accepts it and reports the same top. A second round follows, and the
// same block submitted again is "OK" and changes nothing, as in monerod.
func TestPoolMinesThroughGonerod(t *testing.T) {
	lab := monerodlab.Require(t)
	fresh := lab.FreshChain(t)
	bin := inProcess
	data := importChain(t, bin, fresh)
	g := startGonerod(t, bin, data)
	m := lab.StartMonerod(t, fresh.NodeDir, "--online", "--add-exclusive-node", "127.0.0.1:"+strconv.Itoa(g.p2pPort))
	waitFor(t, 60*time.Second, "both nodes synchronized at the same top", func() bool {
		gi, mi := g.info(t), monerodInfo(t, m)
		return gi.Synchronized && mi.Synchronized && gi.Height == mi.Height && gi.TopHash == mi.TopHash && gi.Incoming == 1
	})
	hasher, err := randomx.New(randomx.Options{VMs: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer hasher.Close()

	var lastBlob string
	for round := uint64(1); round <= 2; round++ {
		var tmpl struct {
			Blob           string `json:"blocktemplate_blob"`
			HashingBlob    string `json:"blockhashing_blob"`
			Difficulty     uint64 `json:"difficulty"`
			Height         uint64 `json:"height"`
			ReservedOffset uint64 `json:"reserved_offset"`
			SeedHash       string `json:"seed_hash"`
			PrevHash       string `json:"prev_hash"`
		}
		if err := g.call("get_block_template", map[string]any{"wallet_address": monerodlab.AliceAddress, "reserve_size": 8}, &tmpl); err != nil {
			t.Fatal(err)
		}
		if before := g.info(t); tmpl.Height != before.Height || tmpl.PrevHash != before.TopHash {
			t.Fatalf("template at height %d on %s; gonerod's top is %s at height %d", tmpl.Height, tmpl.PrevHash, before.TopHash, before.Height)
		}
		blob, _ := hex.DecodeString(tmpl.Blob)
		// The pool's own extra nonce, in the bytes reserved for it.
		if tmpl.ReservedOffset == 0 || tmpl.ReservedOffset+8 > uint64(len(blob)) || !bytes.Equal(blob[tmpl.ReservedOffset:tmpl.ReservedOffset+8], make([]byte, 8)) {
			t.Fatalf("reserved_offset %d does not point at 8 zero bytes of %x", tmpl.ReservedOffset, blob)
		}
		binary.LittleEndian.PutUint64(blob[tmpl.ReservedOffset:], 0xfeed0000+round)
		blk, err := cryptonote.ParseBlock(blob)
		if err != nil {
			t.Fatal(err)
		}
		var seed [32]byte
		seedBytes, _ := hex.DecodeString(tmpl.SeedHash)
		copy(seed[:], seedBytes)
		var powHash [32]byte
		for blk.Nonce = uint32(round * 1000); ; blk.Nonce++ {
			powHash, err = consensus.BlockPoWHash(hasher, tmpl.Height, blk.MajorVersion, seed, blk.HashingBlob())
			if err != nil {
				t.Fatal(err)
			}
			if consensus.CheckPoWHash(powHash, u128.From64(tmpl.Difficulty)) {
				break
			}
		}
		var theirs string
		if err := m.Call("calc_pow", map[string]any{"major_version": blk.MajorVersion, "height": tmpl.Height,
			"block_blob": hex.EncodeToString(blk.HashingBlob()), "seed_hash": tmpl.SeedHash}, &theirs); err != nil {
			t.Fatal(err)
		}
		if theirs != hex.EncodeToString(powHash[:]) {
			t.Fatalf("the pool's RandomX hash %x, monerod's calc_pow %s", powHash, theirs)
		}
		id, err := blk.ID()
		if err != nil {
			t.Fatal(err)
		}
		lastBlob = hex.EncodeToString(blk.Serialize())
		var status struct {
			Status string `json:"status"`
		}
		if err := g.call("submit_block", []string{lastBlob}, &status); err != nil || status.Status != "OK" {
			t.Fatalf("submit_block: %v %+v", err, status)
		}
		if gi := g.info(t); gi.TopHash != id.String() || gi.Height != tmpl.Height+1 {
			t.Fatalf("after submit_block gonerod's top is %s at height %d, want %s at %d", gi.TopHash, gi.Height, id, tmpl.Height+1)
		}
		waitFor(t, 30*time.Second, "monerod to accept the submitted block from gonerod", func() bool {
			mi := monerodInfo(t, m)
			return mi.TopHash == id.String() && mi.Height == tmpl.Height+1
		})
		t.Logf("round %d: block %s at height %d (nonce %d) on both nodes", round, id, tmpl.Height, blk.Nonce)
	}
	before := g.info(t)
	var status struct {
		Status string `json:"status"`
	}
	if err := g.call("submit_block", []string{lastBlob}, &status); err != nil || status.Status != "OK" {
		t.Fatalf("submit_block of a known block: %v %+v", err, status)
	}
	if after := g.info(t); after != before {
		t.Fatalf("a known block changed gonerod: %+v -> %+v", before, after)
	}
}

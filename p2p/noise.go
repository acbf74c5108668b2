package p2p

import (
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"time"

	"github.com/gonero/gonero/levin"
	"github.com/gonero/gonero/portable"
)

// Noise: a zone's --tx-proxy without disable_noise sends its transactions
// as monerod's levin_notify.cpp does, covertly (docs/p2p-levin.md §2.6).
// Up to two outgoing connections are the zone's noise channels, chosen
// afresh every epoch (5 minutes and up to 30 s); each channel sends one
// bucket of exactly 3072 bytes every 10 to 15 s: a dummy (noise) bucket,
// or the next 3072 bytes of a queued transaction message, cut into
// fragments of that size. An observer of the encrypted link sees the same
// traffic whether the node sends transactions or not. Transactions go this
// way on a stem (dandelionpp_fluff false), unpadded, so the receiving
// hidden service forwards them after its delay.
const (
	noiseBytes      = 3072             // CRYPTONOTE_NOISE_BYTES
	noiseChannels   = 2                // CRYPTONOTE_NOISE_CHANNELS
	noiseMinEpoch   = 5 * time.Minute  // CRYPTONOTE_NOISE_MIN_EPOCH
	noiseEpochRange = 30 * time.Second // CRYPTONOTE_NOISE_EPOCH_RANGE
	noiseMinDelay   = 10 * time.Second // CRYPTONOTE_NOISE_MIN_DELAY
	noiseDelayRange = 5 * time.Second  // CRYPTONOTE_NOISE_DELAY_RANGE
	maxFragments    = 20               // CRYPTONOTE_MAX_FRAGMENTS
)

// noiseChannel is one outgoing connection carrying noise.
type noiseChannel struct {
	conn   *conn
	queue  [][]byte // whole fragmented messages waiting
	active []byte   // what is left of the message being sent
	next   time.Time
}

// noiseState is a noise zone's channels; guarded by the zone's mu.
type noiseState struct {
	channels [noiseChannels]noiseChannel
	epochEnd time.Time
	started  bool
}

// randomDuration is random_duration: uniform in [0, d], in milliseconds.
func randomDuration(d time.Duration) time.Duration {
	return time.Duration(mrand.Int64N(int64(d/time.Millisecond)+1)) * time.Millisecond
}

// noiseBucket is make_noise_notify: a bucket of command 0 with the flags
// BEGIN and END, a zero body, 3072 bytes in all.
func noiseBucket() []byte {
	h := levin.Header{BodySize: noiseBytes - levin.HeaderSize, Flags: levin.FlagBegin | levin.FlagEnd, ProtocolVersion: levin.ProtocolVersion}
	b := h.Encode()
	return append(b[:], make([]byte, noiseBytes-levin.HeaderSize)...)
}

// errTooManyFragments: a message needs more than CRYPTONOTE_MAX_FRAGMENTS.
var errTooManyFragments = errors.New("p2p: message too large for the noise channel")

// fragmentedNotify is make_fragmented_notify: a notification that fits in
// 3072 bytes is sent whole, its body zero-padded to that size (the parser
// ignores what follows the storage); a larger one is cut into pieces of
// 3072 − 33 bytes, each behind a header of command 0 and the flags BEGIN
// (first), 0, END (last), the last piece zero-padded.
func fragmentedNotify(command uint32, body []byte) ([]byte, error) {
	if levin.HeaderSize+len(body) <= noiseBytes {
		padded := append(append([]byte(nil), body...), make([]byte, noiseBytes-levin.HeaderSize-len(body))...)
		return levin.AppendMessage(nil, levin.Message{Kind: levin.KindNotification, Command: command, Body: padded})
	}
	inner, err := levin.AppendMessage(nil, levin.Message{Kind: levin.KindNotification, Command: command, Body: body})
	if err != nil {
		return nil, err
	}
	const piece = noiseBytes - levin.HeaderSize
	if (len(inner)+piece-1)/piece > maxFragments {
		return nil, fmt.Errorf("%w: %d bytes", errTooManyFragments, len(inner))
	}
	var out []byte
	for off := 0; off < len(inner); off += piece {
		flags := levin.Flags(0)
		switch {
		case off == 0:
			flags = levin.FlagBegin
		case off+piece >= len(inner):
			flags = levin.FlagEnd
		}
		h := levin.Header{BodySize: piece, Flags: flags, ProtocolVersion: levin.ProtocolVersion}
		hb := h.Encode()
		out = append(out, hb[:]...)
		chunk := inner[off:min(off+piece, len(inner))]
		out = append(out, chunk...)
		out = append(out, make([]byte, piece-len(chunk))...)
	}
	return out, nil
}

// noiseTxMessage is what a noise channel sends for transactions:
// make_tx_message unpadded and on a stem, fragmented.
func noiseTxMessage(txs [][]byte) ([]byte, error) {
	body, err := portable.Marshal(portable.NewTransactions{Txs: txs, Stem: true})
	if err != nil {
		return nil, err
	}
	return fragmentedNotify(levin.NotifyNewTransactions, body)
}

// writeRaw queues bytes already framed as levin buckets.
func (c *conn) writeRaw(buf []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.enqueue(buf)
}

// noiseLoop runs a noise zone's channels until the node stops.
func (n *Node) noiseLoop(z *zone) {
	defer n.wg.Done()
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-n.ctx.Done():
			return
		case <-t.C:
		}
		next := n.noiseTick(z, n.now())
		// At least every second, so that a new connection fills an empty
		// channel soon (monerod's new_out_connection).
		t.Reset(min(next, time.Second))
	}
}

// noiseTick starts an epoch when one is due, fills the channels whose
// connection went away, queues the node's own transactions and sends what
// is due; it returns how long until the next send.
func (n *Node) noiseTick(z *zone, now time.Time) time.Duration {
	// get_out_connections: outgoing, the peer at least as high as this
	// node.
	height := n.chain.Height()
	var outs []*conn
	for _, c := range n.zoneConns(z, true) {
		c.mu.Lock()
		high := c.remoteHeight >= height
		c.mu.Unlock()
		if c.getState() == stateNormal && high {
			outs = append(outs, c)
		}
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	ns := &z.noise
	if !ns.started {
		ns.started = true
		for i := range ns.channels {
			ns.channels[i].next = now.Add(z.cfg.noiseDelay())
		}
	}
	if !now.Before(ns.epochEnd) {
		// start_epoch: a fresh random choice of channels.
		mrand.Shuffle(len(outs), func(i, j int) { outs[i], outs[j] = outs[j], outs[i] })
		for i := range ns.channels {
			var c *conn
			if i < len(outs) {
				c = outs[i]
			}
			ns.setConn(i, c)
		}
		ns.epochEnd = now.Add(noiseMinEpoch + randomDuration(noiseEpochRange))
	} else {
		// update_channels: replace the channels whose connection is gone.
		used := map[*conn]bool{}
		for i := range ns.channels {
			if c := ns.channels[i].conn; c != nil && !c.closed() {
				used[c] = true
			}
		}
		for i := range ns.channels {
			if c := ns.channels[i].conn; c != nil && !c.closed() {
				continue
			}
			var pick *conn
			for _, c := range outs {
				if !used[c] {
					pick = c
					break
				}
			}
			if pick != nil {
				used[pick] = true
			}
			ns.setConn(i, pick)
		}
	}
	n.queueOwnNoise(z)
	wait := noiseMinDelay + noiseDelayRange
	for i := range ns.channels {
		ch := &ns.channels[i]
		if !now.Before(ch.next) {
			n.sendNoise(ch)
			ch.next = now.Add(z.cfg.noiseDelay())
		}
		wait = min(wait, ch.next.Sub(now))
	}
	return max(wait, time.Millisecond)
}

// setConn is update_channel: a new connection restarts the message in
// flight (sending its rest could show that it was real); without one the
// queue goes too. The node's own transactions are queued again for the
// new connection (queueOwnNoise).
func (ns *noiseState) setConn(i int, c *conn) {
	ch := &ns.channels[i]
	if ch.conn == c {
		return
	}
	ch.conn, ch.active, ch.queue = c, nil, nil
}

// sendNoise is send_noise: the next 3072 bytes of the message in flight,
// else of the next queued one, else a dummy bucket.
func (n *Node) sendNoise(ch *noiseChannel) {
	if ch.conn == nil {
		return
	}
	if len(ch.active) == 0 && len(ch.queue) > 0 {
		ch.active, ch.queue = ch.queue[0], ch.queue[1:]
	}
	var msg []byte
	if len(ch.active) > 0 {
		msg, ch.active = ch.active[:noiseBytes], ch.active[noiseBytes:]
	} else {
		msg = noiseBucket()
	}
	if err := ch.conn.writeRaw(msg); err != nil {
		ch.conn, ch.active, ch.queue = nil, nil, nil
	}
}

// queueOwnNoise queues the node's own transactions on the channels whose
// connection does not have them yet. Called with z.mu held.
func (n *Node) queueOwnNoise(z *zone) {
	for id, o := range z.own {
		if inPool, _ := n.pool.StemPhase(id); !inPool {
			delete(z.own, id)
			continue
		}
		for i := range z.noise.channels {
			ch := &z.noise.channels[i]
			if ch.conn == nil || o.sent[ch.conn] {
				continue
			}
			o.sent[ch.conn] = true
			msg, err := noiseTxMessage([][]byte{o.blob})
			if err != nil {
				n.log.Warn("own transaction not sent over the anonymity zone", "zone", z.cfg.Zone, "tx", id, "err", err)
				continue
			}
			ch.queue = append(ch.queue, msg)
			n.log.Debug("own transaction queued on a noise channel", "zone", z.cfg.Zone, "tx", id, "to", ch.conn)
		}
	}
}

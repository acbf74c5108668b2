package p2p

import (
	"context"
	"errors"
	"time"

	"github.com/gonero/gonero/levin"
	"github.com/gonero/gonero/portable"
	"github.com/gonero/gonero/pruning"
)

// maxPeersInHandshake is P2P_MAX_PEERS_IN_HANDSHAKE.
const maxPeersInHandshake = 250

// peerListSaveInterval is how often monerod writes p2pstate.bin.
const peerListSaveInterval = 30 * time.Minute

// nodeData is what this node says about itself in a handshake (docs/p2p-levin.md §4.3).
func (n *Node) nodeData(c *conn) portable.NodeData {
	if c.anon != nil {
		return zoneNodeData(n.chain.Network().NetworkID())
	}
	return portable.NodeData{
		NetworkID:    n.chain.Network().NetworkID(),
		MyPort:       n.cfg.MyPort,
		PeerID:       n.peerID,
		SupportFlags: portable.SupportFlagFluffyBlocks,
	}
}

// syncData is CORE_SYNC_DATA for the current top (docs/p2p-levin.md §4.4).
func (n *Node) syncData() portable.CoreSyncData {
	top, height := n.chain.Top(), n.chain.Height()
	return portable.CoreSyncData{
		CurrentHeight:             height,
		CumulativeDifficulty:      top.CumulativeDifficulty.Lo,
		CumulativeDifficultyTop64: top.CumulativeDifficulty.Hi,
		TopID:                     top.Hash,
		TopVersion:                n.chain.Network().VersionAt(top.Height),
		PruningSeed:               n.pruningSeed(),
	}
}

// handshakeOut runs the outgoing handshake (docs/p2p-levin.md §6.1, §6.3). It
// handles the peer's answer on the dialling goroutine, so it recovers a panic too.
func (n *Node) handshakeOut(c *conn) (err error) {
	defer close(c.handshaken)
	defer c.recoverPanic(&err)
	resp, err := n.invokeHandshake(c)
	if err != nil {
		return err
	}
	if resp.NodeData.PeerID == n.peerID {
		return errors.New("connected to itself")
	}
	c.mu.Lock()
	c.handshaked = true
	c.remote = resp.NodeData
	c.mu.Unlock()
	if err := n.processSyncData(c, resp.PayloadData, true); err != nil {
		return err
	}
	if err := n.mergePeers(c, resp.LocalPeerlist); err != nil {
		return err
	}
	n.listFor(c).addWhite(portable.PeerlistEntry{Address: c.addr, ID: resp.NodeData.PeerID,
		RPCPort: resp.NodeData.RPCPort, RPCCreditsPerHash: resp.NodeData.RPCCreditsPerHash}, n.now())
	// Every outgoing peer becomes an anchor, one dialled as an anchor with
	// its first_seen (try_to_connect_and_handshake_with_new_peer).
	since := c.anchorSince
	if since.IsZero() {
		since = n.now()
	}
	n.listFor(c).addAnchor(c.addr, resp.NodeData.PeerID, since)
	n.log.Info("connected", "conn", c, "peer_id", resp.NodeData.PeerID, "height", resp.PayloadData.CurrentHeight)
	if resp.NodeData.SupportFlags == 0 && c.anon == nil {
		n.goTracked(func() { n.requestSupportFlags(c) })
	}
	n.afterHandshake(c)
	return nil
}

func (n *Node) requestSupportFlags(c *conn) {
	var sf portable.SupportFlagsResponse
	if err := c.invoke(levin.CommandRequestSupportFlags, portable.SupportFlagsRequest{}, &sf, supportFlagsInvokeLimit); err != nil {
		n.dropConn(c, err)
		return
	}
	c.mu.Lock()
	c.remote.SupportFlags = sf.SupportFlags
	c.mu.Unlock()
}

// processSyncData is process_payload_sync_data (docs/p2p-levin.md §6.4). A returned error
// drops the peer.
func (n *Node) processSyncData(c *conn, d portable.CoreSyncData, initial bool) error {
	if c.anon != nil {
		return n.zoneSyncData(c, d)
	}
	st := c.getState()
	if st == stateBeforeHandshake && !initial {
		return nil
	}
	if st == stateSynchronizing {
		c.mu.Lock()
		c.remoteHeight = max(c.remoteHeight, d.CurrentHeight)
		c.mu.Unlock()
		return nil
	}
	if err := n.checkSyncData(d); err != nil {
		return err
	}
	// monerod masks the seed's fields (get_pruning_log_stripes keeps 3
	// bits), so higher bits pass: pruning.ValidateSeed does the same.
	if err := pruning.ValidateSeed(d.PruningSeed); err != nil {
		return misbehaved(0, "invalid pruning seed %#x", d.PruningSeed)
	}
	c.mu.Lock()
	c.remoteHeight, c.pruningSeed = d.CurrentHeight, d.PruningSeed
	c.mu.Unlock()
	height := n.chain.Height()
	target := max(n.target(), height)
	if n.chain.HasBlock(d.TopID) {
		c.setState(stateNormal)
		if initial && d.CurrentHeight >= target && target == height {
			n.setSynchronized()
		}
		return nil
	}
	n.raiseCoreTarget(d.CurrentHeight, true)
	if d.CurrentHeight >= target {
		n.log.Info("synchronization started", "peer", c, "our_height", height, "peer_height", d.CurrentHeight)
	}
	if n.cfg.NoSync {
		c.setState(stateNormal)
		return nil
	}
	c.setState(stateSynchronizing)
	// The chain request goes out once the handshake has been answered.
	c.mu.Lock()
	c.sync.wantChain = true
	c.mu.Unlock()
	return nil
}

// checkSyncData is what process_payload_sync_data checks in every zone:
// a height below the block-number limit and, from version 6 on, the top
// version of this network at that height. A refused sync data drops the
// peer without a fail (monerod's handle_handshake and handle_timed_sync on
// process_payload_sync_data false: drop_connection only).
func (n *Node) checkSyncData(d portable.CoreSyncData) error {
	if d.CurrentHeight >= maxBlockNumber {
		return misbehaved(0, "peer claims height %d", d.CurrentHeight)
	}
	if d.CurrentHeight > 0 {
		if v := n.chain.Network().VersionAt(d.CurrentHeight - 1); v >= 6 && v != d.TopVersion {
			return misbehaved(0, "peer at height %d claims top version %d; this network's is %d", d.CurrentHeight, d.TopVersion, v)
		}
	}
	return nil
}

// afterHandshake sends what waits for the handshake to complete: the
// first chain request when the peer's top is unknown.
func (n *Node) afterHandshake(c *conn) {
	c.mu.Lock()
	want := c.sync.wantChain
	c.sync.wantChain = false
	c.mu.Unlock()
	if want {
		if err := n.requestChain(c); err != nil {
			n.dropConn(c, err)
		}
	}
}

// handleInvoke answers the admin commands (docs/p2p-levin.md §5); anything else gets -6.
func (c *conn) handleInvoke(m levin.Message) error {
	n := c.node
	if c.anon != nil && zoneFiltered(m.Command) {
		return c.respond(m.Command, levin.ReturnErrHandlerNotDefined, nil)
	}
	switch m.Command {
	case levin.CommandHandshake:
		var req portable.HandshakeRequest
		if err := portable.Unmarshal(m.Body, &req); err != nil {
			// monerod answers an undecodable invoke with -1 and scores
			// no fail; gonero drops the connection too.
			_ = c.respond(m.Command, levin.ReturnErrConnection, nil)
			return misbehaved(0, "handshake request: %w", err)
		}
		return n.handshakeIn(c, req)
	case levin.CommandTimedSync:
		var req portable.TimedSyncRequest
		if err := portable.Unmarshal(m.Body, &req); err != nil {
			_ = c.respond(m.Command, levin.ReturnErrConnection, nil)
			return misbehaved(0, "timed sync request: %w", err)
		}
		if err := n.processSyncData(c, req.PayloadData, false); err != nil {
			_ = c.respond(m.Command, levin.ReturnSuccess, portable.TimedSyncResponse{PayloadData: n.syncData()})
			return err
		}
		if err := c.respond(m.Command, levin.ReturnSuccess, portable.TimedSyncResponse{
			PayloadData: n.syncData(), LocalPeerlist: n.peersToSend(c)}); err != nil {
			return err
		}
		c.mu.Lock()
		want := c.sync.wantChain
		c.mu.Unlock()
		if want {
			n.afterHandshake(c)
		}
		return nil
	case levin.CommandPing:
		return c.respond(m.Command, levin.ReturnSuccess, portable.PingResponse{Status: portable.PingStatusOK, PeerID: n.peerID})
	case levin.CommandRequestSupportFlags:
		return c.respond(m.Command, levin.ReturnSuccess, portable.SupportFlagsResponse{SupportFlags: portable.SupportFlagFluffyBlocks})
	}
	// An unknown invoke, or a notification command sent as an invoke.
	return c.respond(m.Command, levin.ReturnErrHandlerNotDefined, nil)
}

// handshakeIn handles an incoming handshake (docs/p2p-levin.md §6.2).
func (n *Node) handshakeIn(c *conn, req portable.HandshakeRequest) error {
	// Scored as monerod's handle_handshake (net_node.inl): another
	// network and a handshake on an outgoing connection score one fail,
	// a second handshake none.
	if req.NodeData.NetworkID != n.chain.Network().NetworkID() {
		return misbehaved(1, "handshake from another network (id %x)", req.NodeData.NetworkID)
	}
	if !c.inbound {
		return misbehaved(1, "handshake request on an outgoing connection")
	}
	c.mu.Lock()
	again := c.handshaked
	c.mu.Unlock()
	if again {
		return misbehaved(0, "second handshake on one connection")
	}
	if req.NodeData.PeerID == n.peerID {
		return errors.New("connection from itself")
	}
	if err := n.processSyncData(c, req.PayloadData, true); err != nil {
		return err
	}
	c.mu.Lock()
	c.handshaked = true
	c.remote = req.NodeData
	c.mu.Unlock()
	if c.getState() == stateBeforeHandshake {
		c.setState(stateNormal)
	}
	c.rd.Limit = levin.MaxPacketSize
	if err := c.respond(levin.CommandHandshake, levin.ReturnSuccess, portable.HandshakeResponse{
		NodeData: n.nodeData(c), PayloadData: n.syncData(), LocalPeerlist: n.peersToSend(c)}); err != nil {
		return err
	}
	n.log.Info("peer connected", "conn", c, "peer_id", req.NodeData.PeerID, "height", req.PayloadData.CurrentHeight)
	if req.NodeData.SupportFlags == 0 && c.anon == nil {
		n.goTracked(func() { n.requestSupportFlags(c) })
	}
	if req.NodeData.MyPort != 0 && c.anon == nil && n.cfg.Proxy == nil {
		n.goTracked(func() { n.pingBack(c, req.NodeData) })
	}
	n.afterHandshake(c)
	return nil
}

// peersToSend draws up to 250 white peers not yet sent on c (docs/p2p-levin.md §5.1, §5.2).
func (n *Node) peersToSend(c *conn) []portable.PeerlistEntry {
	all := n.zonePeersToSend(c)
	c.mu.Lock()
	defer c.mu.Unlock()
	out := all[:0]
	for _, e := range all {
		k := e.Address.String()
		if c.sentPeers[k] {
			continue
		}
		c.sentPeers[k] = true
		e.LastSeen = 0
		out = append(out, e)
	}
	return out
}

// pingBackTimeout bounds the connection of a ping-back.
const pingBackTimeout = 2 * time.Second

// newPingConn opens a short-lived outgoing connection for a ping-back, as
// the public zone opens its connections (only public peers are pinged
// back).
func newPingConn(n *Node, a portable.NetAddress) (*conn, error) {
	ctx, cancel := context.WithTimeout(n.ctx, pingBackTimeout)
	nc, err := n.public.connect(ctx, a)
	cancel()
	if err != nil {
		return nil, err
	}
	c := newConn(n, nc, false, a)
	c.ping = true
	n.addConn(c)
	return c, nil
}

// pingBack checks that an incoming peer accepts connections on the port
// it advertised before putting it in the white list, as monerod does.
// Loopback and local addresses are never pinged nor listed.
func (n *Node) pingBack(c *conn, nd portable.NodeData) {
	ip := c.addr.IP
	if !reachable(ip) || nd.MyPort > 65535 {
		return
	}
	addr := portable.NetAddress{Type: c.addr.Type, IP: ip, Port: uint16(nd.MyPort)}
	pc, err := newPingConn(n, addr)
	if err != nil {
		return
	}
	defer n.dropConn(pc, nil)
	var resp portable.PingResponse
	if err := pc.invoke(levin.CommandPing, portable.PingRequest{}, &resp, 2*time.Second); err != nil {
		return
	}
	if resp.Status == portable.PingStatusOK && resp.PeerID == nd.PeerID {
		n.peers.addWhite(portable.PeerlistEntry{Address: addr, ID: nd.PeerID, RPCPort: nd.RPCPort,
			RPCCreditsPerHash: nd.RPCCreditsPerHash}, n.now())
	}
}

// timedSyncLoop sends COMMAND_TIMED_SYNC to every handshaked connection
// every 60 s (docs/p2p-levin.md §6.5).
func (n *Node) timedSyncLoop() {
	defer n.wg.Done()
	t := time.NewTicker(n.cfg.TimedSyncInterval)
	defer t.Stop()
	for {
		select {
		case <-n.ctx.Done():
			return
		case <-t.C:
		}
		// Every zone's connections, as monerod's peer_sync_idle_maker.
		for _, c := range n.allConnections() {
			c.mu.Lock()
			ok := c.handshaked && !c.sync.inTimedSync
			if ok {
				c.sync.inTimedSync = true
			}
			c.mu.Unlock()
			if ok {
				n.wg.Add(1)
				go func(c *conn) {
					defer n.wg.Done()
					n.timedSync(c)
				}(c)
			}
		}
	}
}

func (n *Node) timedSync(c *conn) {
	// Its answer is handled here rather than on the reader: recover here too.
	defer c.recoverPanic(nil)
	defer func() {
		c.mu.Lock()
		c.sync.inTimedSync = false
		c.mu.Unlock()
	}()
	var resp portable.TimedSyncResponse
	if err := c.invoke(levin.CommandTimedSync, portable.TimedSyncRequest{PayloadData: n.syncData()}, &resp, timedSyncInvokeTimeout); err != nil {
		n.dropConn(c, err)
		return
	}
	if len(resp.LocalPeerlist) > maxPeersInHandshake {
		n.dropConn(c, misbehaved(1, "timed sync response with %d peers", len(resp.LocalPeerlist)))
		return
	}
	c.handling.Lock()
	defer c.handling.Unlock()
	if err := n.mergePeers(c, resp.LocalPeerlist); err != nil {
		n.dropConn(c, err)
		return
	}
	if !c.inbound {
		n.listFor(c).touchWhite(c.addr, n.now())
	}
	if err := n.processSyncData(c, resp.PayloadData, false); err != nil {
		n.dropConn(c, err)
		return
	}
	n.afterHandshake(c)
}

// invokeHandshake sends this node's handshake request on an outgoing
// connection and checks what every answer must satisfy, whatever the
// connection is for (a peer, or a seed asked only for its peer list): the
// network and the size of the peer list.
func (n *Node) invokeHandshake(c *conn) (portable.HandshakeResponse, error) {
	var resp portable.HandshakeResponse
	err := c.invoke(levin.CommandHandshake, portable.HandshakeRequest{NodeData: n.nodeData(c), PayloadData: n.syncData()},
		&resp, handshakeInvokeTimeout)
	if err != nil {
		return resp, err
	}
	// monerod's do_handshake_with_peer closes on another network without a
	// fail, and scores one for too many peers (handle_remote_peerlist).
	if resp.NodeData.NetworkID != n.chain.Network().NetworkID() {
		return resp, misbehaved(0, "handshake response from another network (id %x)", resp.NodeData.NetworkID)
	}
	if len(resp.LocalPeerlist) > maxPeersInHandshake {
		return resp, misbehaved(1, "handshake response with %d peers (at most %d)", len(resp.LocalPeerlist), maxPeersInHandshake)
	}
	return resp, nil
}

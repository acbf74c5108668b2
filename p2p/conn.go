package p2p

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gonero/gonero/levin"
	"github.com/gonero/gonero/portable"
)

// connState is cryptonote_connection_context::state (docs/p2p-levin.md §9.1).
type connState int32

const (
	stateBeforeHandshake connState = 0
	stateSynchronizing   connState = 1
	stateStandby         connState = 2
	stateIdle            connState = 3
	stateNormal          connState = 4
)

func (s connState) String() string {
	switch s {
	case stateBeforeHandshake:
		return "before_handshake"
	case stateSynchronizing:
		return "synchronizing"
	case stateStandby:
		return "standby"
	case stateIdle:
		return "idle"
	case stateNormal:
		return "normal"
	}
	return "unknown"
}

// Errors that end a connection.
var (
	ErrClosed        = errors.New("p2p: connection closed")
	ErrInvokeTimeout = errors.New("p2p: no response to an invoke in time")
	ErrInvokeFailed  = errors.New("p2p: the peer answered an invoke with an error code")
)

// peerError is a misbehaving peer: the connection is dropped and the host
// collects fails (score) towards a ban, as monerod's drop_connection_with_score
// (score 0: dropped without a fail, monerod's drop_connection(context,
// false, ...)). host is monerod's drop_connections(address), which a
// refused span calls first: the host scores hostFail more and every one of
// its connections, this one too, is dropped with one fail.
type peerError struct {
	score int
	host  bool
	err   error
}

func (e *peerError) Error() string { return e.err.Error() }
func (e *peerError) Unwrap() error { return e.err }

func misbehaved(score int, format string, args ...any) error {
	return &peerError{score: score, err: fmt.Errorf(format, args...)}
}

// conn is one P2P connection, inbound or outbound. One goroutine reads and
// handles messages in arrival order (so invoke responses go out in the
// order the invokes came, as levin requires); any goroutine may send.
type conn struct {
	node    *Node
	nc      net.Conn
	id      [16]byte
	inbound bool
	ping    bool                // a short-lived ping-back connection
	addr    portable.NetAddress // the remote end
	// anon is the anonymity zone the connection is in (zones.go); nil for
	// the public zone.
	anon    *zone
	started time.Time
	// anchorSince is the first_seen of the anchor an outgoing connection
	// was dialled for (zero when it was not), which its handshake keeps.
	anchorSince time.Time
	// limitKey is what an incoming connection counts under for
	// --max-connections-per-ip; admitted says it is still counted
	// (Node.admitIncoming, releaseIncoming).
	limitKey netip.Prefix
	admitted atomic.Bool

	rd *levin.Reader

	wmu     sync.Mutex  // serialises queueing and the pending queue's order; L9 (Node's lock order), pmu inside it
	sendq   chan []byte // encoded messages for writeLoop
	queued  atomic.Int64
	writing atomic.Bool // writeLoop runs (and will close the socket)
	// sendClosed (under wmu) is set when the writer ended: nothing more
	// is queued (budget.go).
	sendClosed bool
	// drained wakes a reader waiting for room in the send queue
	// (waitSendRoom).
	drained chan struct{}
	// inHeld is the connection's share of the node's levin-in budget: the
	// bytes of the message being read or handled (reader goroutine only;
	// claimIn, releaseIn).
	inHeld uint64

	pmu     sync.Mutex           // L9, a leaf
	pending []chan levin.Message // invokes awaiting a response, oldest first

	done      chan struct{}
	closeOnce sync.Once
	closeErr  error
	// handshaken is closed when an outgoing handshake's response has been
	// processed (or failed): the reader waits for it before reading on,
	// because monerod sends its chain request right after that response.
	handshaken chan struct{}

	recvCount, sendCount atomic.Uint64
	lastRecv, lastSend   atomic.Int64 // unix nanoseconds; 0 = never
	down, up             meter

	state atomic.Int32

	// handling is held while a message is handled, by the reader and by
	// the goroutine that processes a timed-sync response, so that the two
	// never interleave their changes to the sync state. L1, the outermost
	// (Node's lock order).
	handling sync.Mutex

	mu           sync.Mutex // guards what follows; L7 (Node's lock order)
	handshaked   bool
	remote       portable.NodeData
	remoteHeight uint64
	pruningSeed  uint32
	sentPeers    map[string]bool // peer-list entries already sent on this connection
	sync         syncState
}

func newConn(n *Node, nc net.Conn, inbound bool, addr portable.NetAddress) *conn {
	c := &conn{node: n, nc: nc, inbound: inbound, addr: addr, started: n.now(), done: make(chan struct{}),
		handshaken: make(chan struct{}), sendq: make(chan []byte, sendQueueMessages+1), drained: make(chan struct{}, 1)}
	_, _ = rand.Read(c.id[:])
	limit := levin.MaxPacketSizeBeforeHandshake
	c.rd = levin.NewReader(bufio.NewReaderSize(countingReader{c}, 64<<10), limit)
	c.rd.CommandLimit = c.commandLimit
	c.rd.Claim = c.claimIn
	c.sentPeers = map[string]bool{}
	return c
}

func (c *conn) String() string {
	dir := "out"
	if c.inbound {
		dir = "in"
	}
	return fmt.Sprintf("%s %s", dir, c.addr)
}

func (c *conn) getState() connState  { return connState(c.state.Load()) }
func (c *conn) setState(s connState) { c.state.Store(int32(s)) }

// countingReader counts received bytes and keeps the receive meters.
type countingReader struct{ c *conn }

func (r countingReader) Read(p []byte) (int, error) {
	n, err := r.c.nc.Read(p)
	if n > 0 {
		now := r.c.node.now()
		r.c.recvCount.Add(uint64(n))
		r.c.node.traffic.packetsIn.Add(1)
		r.c.node.traffic.bytesIn.Add(uint64(n))
		r.c.lastRecv.Store(now.UnixNano())
		r.c.down.add(now, n)
		// --limit-rate-down: the bytes are in, but the next read waits
		// until the node's download rate allows them, as monerod's
		// connection waits on its global in-throttle before each read.
		// A peer that sends faster fills its socket buffers, then its
		// own.
		r.c.node.rateDown.wait(n, r.c.done)
	}
	return n, err
}

// close ends the connection once; err says why (nil: a clean shutdown).
func (c *conn) close(err error) {
	c.closeOnce.Do(func() {
		c.closeErr = err
		if c.node != nil { // nil for connections made by tests
			c.node.refusals.drop(err)
		}
		close(c.done)
		if c.writing.Load() {
			// The writer sends what is queued (a last answer, such as
			// monerod's -1 to an unparsable handshake) and then closes the
			// socket; unblock the reader meanwhile, and cut short a write
			// blocked on a peer that does not read (else the socket and
			// its queue would stay for writeTimeout after the drop).
			_ = c.nc.SetReadDeadline(time.Now())
			_ = c.nc.SetWriteDeadline(time.Now().Add(lingerTimeout))
		} else {
			_ = c.nc.Close()
		}
		c.pmu.Lock()
		for _, ch := range c.pending {
			close(ch)
		}
		c.pending = nil
		c.pmu.Unlock()
	})
}

func (c *conn) closed() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// writeTimeout bounds one write: a peer that does not read is dropped.
const writeTimeout = 2 * time.Minute

// Send-queue bounds: a peer that lets this much pile up unread is dropped
// rather than holding anyone up (relaying a block never waits for a peer).
// They are monerod's for a P2P connection (abstract_tcp_server2.h): a
// message is refused, and the connection terminated, when more than
// ABSTRACT_SERVER_SEND_QUE_MAX_COUNT messages or more than
// ABSTRACT_SERVER_SEND_QUE_MAX_BYTES_DEFAULT bytes are queued before it (a
// soft limit: the message itself is not counted). monerod counts a message
// over 256 KiB as its 128 KiB chunks; gonero counts messages.
const (
	sendQueueMessages = 1000
	sendQueueBytes    = 100 << 20
)

// write queues m for the connection's writer goroutine. It never blocks:
// a full queue closes the connection. Callers hold wmu, so messages go out
// in the order they were queued (responses in invoke order, invokes in the
// order of the pending queue).
func (c *conn) write(m levin.Message) error {
	buf, err := levin.AppendMessage(make([]byte, 0, levin.HeaderSize+len(m.Body)), m)
	if err != nil {
		return err
	}
	return c.enqueue(buf)
}

var errSendQueueFull = errors.New("p2p: the peer does not read what it is sent")

// lingerTimeout bounds how long a closing connection spends sending what
// was queued before it closed.
const lingerTimeout = 2 * time.Second

// writeLoop sends what write queued until the connection closes, then
// sends what is left (for at most lingerTimeout) and closes the socket.
func (c *conn) writeLoop() {
	defer c.nc.Close()
	defer c.closeSendQueue()
	for {
		select {
		case <-c.done:
			deadline := time.Now().Add(lingerTimeout)
			for {
				select {
				case buf := <-c.sendq:
					if c.send(buf, deadline) != nil {
						return
					}
				default:
					return
				}
			}
		case buf := <-c.sendq:
			if err := c.send(buf, time.Now().Add(writeTimeout)); err != nil {
				c.node.dropConn(c, err)
				return
			}
		}
	}
}

// send writes buf within the node's upload limit (--limit-rate-up): chunk
// by chunk, each reserved from the limiter before it is written, so that
// the connections with something to send take turns (rateLimiter). A
// write deadline runs from when its chunk may go; deadline bounds the
// whole when the connection is closing (lingerTimeout).
func (c *conn) send(buf []byte, deadline time.Time) error {
	defer c.dequeue(len(buf))
	closing := c.closed()
	for len(buf) > 0 {
		chunk := buf[:min(len(buf), c.node.rateUp.chunk())]
		if !closing {
			// A closing connection sends its last words unthrottled:
			// lingerTimeout bounds them.
			if !c.node.rateUp.wait(len(chunk), c.done) {
				closing = true
				deadline = time.Now().Add(lingerTimeout)
			} else {
				deadline = time.Now().Add(writeTimeout)
			}
		}
		_ = c.nc.SetWriteDeadline(deadline)
		if linger := time.Now().Add(lingerTimeout); c.closed() && deadline.After(linger) {
			// close may have set its shorter deadline just before this one.
			deadline = linger
			_ = c.nc.SetWriteDeadline(linger)
		}
		n, err := c.nc.Write(chunk)
		if n > 0 {
			now := c.node.now()
			c.sendCount.Add(uint64(n))
			c.node.traffic.packetsOut.Add(1)
			c.node.traffic.bytesOut.Add(uint64(n))
			c.lastSend.Store(now.UnixNano())
			c.up.add(now, n)
		}
		if err != nil {
			return err
		}
		buf = buf[n:]
	}
	return nil
}

// notify sends a notification.
func (c *conn) notify(command uint32, p interface{ ToSection() portable.Section }) error {
	body, err := portable.Marshal(p)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.write(levin.Message{Kind: levin.KindNotification, Command: command, Body: body})
}

// invoke sends a request and waits up to timeout for its response, which
// it decodes into resp. Never call it from the reading goroutine: that
// goroutine delivers the response. A timeout closes the connection, as
// monerod does.
func (c *conn) invoke(command uint32, req interface{ ToSection() portable.Section }, resp interface{ FromSection(portable.Section) error }, timeout time.Duration) error {
	body, err := portable.Marshal(req)
	if err != nil {
		return err
	}
	ch := make(chan levin.Message, 1)
	c.wmu.Lock()
	c.pmu.Lock()
	if c.closed() {
		c.pmu.Unlock()
		c.wmu.Unlock()
		return ErrClosed
	}
	c.pending = append(c.pending, ch)
	c.pmu.Unlock()
	err = c.write(levin.Message{Kind: levin.KindRequest, Command: command, Body: body})
	c.wmu.Unlock()
	if err != nil {
		return err
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case m, ok := <-ch:
		if !ok {
			return ErrClosed
		}
		if m.ReturnCode <= 0 {
			return fmt.Errorf("%w: command %d, return code %d", ErrInvokeFailed, command, m.ReturnCode)
		}
		if err := portable.Unmarshal(m.Body, resp); err != nil {
			// monerod's invoke callback gets LEVIN_ERROR_FORMAT: no fail.
			return misbehaved(0, "response to command %d: %w", command, err)
		}
		return nil
	case <-t.C:
		c.close(ErrInvokeTimeout)
		return fmt.Errorf("%w (command %d)", ErrInvokeTimeout, command)
	case <-c.done:
		return ErrClosed
	}
}

// respond answers the invoke being handled (reading goroutine only).
func (c *conn) respond(command uint32, rc levin.ReturnCode, p interface{ ToSection() portable.Section }) error {
	var body []byte
	if p != nil {
		var err error
		if body, err = portable.Marshal(p); err != nil {
			return err
		}
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.write(levin.Message{Kind: levin.KindResponse, Command: command, ReturnCode: rc, Body: body})
}

// idle timeouts, as monerod's connection timer (docs/p2p-levin.md §1): short until the
// handshake is done, long afterwards (timed syncs every 60 s keep a healthy
// connection alive).
const (
	handshakeIdleTimeout = 10 * time.Second
	idleTimeout          = 5 * time.Minute
)

// readLoop reads and handles messages until the connection ends.
func (c *conn) readLoop() {
	defer c.releaseIn()
	for {
		// The next message is read only when there is room to answer it
		// (budget.go): a peer cannot make the node work faster than it
		// reads, nor pile up answers.
		if err := c.waitSendRoom(); err != nil {
			if !c.closed() {
				c.node.dropConn(c, err)
			}
			return
		}
		timeout := idleTimeout
		if c.getState() == stateBeforeHandshake && c.inbound {
			timeout = handshakeIdleTimeout
		}
		_ = c.nc.SetReadDeadline(time.Now().Add(timeout))
		m, err := c.rd.ReadMessage()
		if err != nil {
			if !c.closed() {
				if errors.Is(err, io.EOF) {
					err = ErrClosed
				} else if err = unaskedAnswer(err); isWireError(err) && !errors.As(err, new(*peerError)) {
					// monerod's levin handler closes the connection
					// on these without a fail towards a ban.
					err = &peerError{score: 0, err: err}
				}
				c.node.dropConn(c, err)
			}
			return
		}
		err = c.handleRecovering(m)
		c.releaseIn()
		if err != nil {
			c.node.dropConn(c, err)
			return
		}
		if c.closed() {
			return
		}
	}
}

// isWireError reports a stream that is not levin, or levin this node does
// not take (monerod's levin_protocol_handler_async: signature mismatch,
// packet size exceeded, bad fragment...).
func isWireError(err error) bool {
	for _, e := range []error{levin.ErrBadSignature, levin.ErrBadHeader, levin.ErrBadProtocolVersion, levin.ErrTooLarge, levin.ErrBadFragment} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// handleRecovering handles m under c.handling and turns a panic in its
// handlers into an error, so that a bug one peer's message reaches costs
// that connection, not the node (httpd recovers per request likewise).
func (c *conn) handleRecovering(m levin.Message) (err error) {
	c.handling.Lock()
	defer c.handling.Unlock()
	defer c.recoverPanic(&err)
	if h := c.node.cfg.beforeHandle; h != nil {
		h(m)
	}
	return c.handle(m)
}

// errHandlerPanic is why a connection whose handler panicked was dropped.
// It is not a peerError: the fault is the node's, so the host is not
// scored towards a ban.
var errHandlerPanic = errors.New("p2p: a handler panicked")

// recoverPanic, deferred on a connection's goroutine, recovers a panic:
// it logs it with its stack, counts it (HandlerPanics) and sets *err (if
// err is not nil) to an error that drops the connection, or else drops
// the connection itself. Locks the panicking code held without a defer
// stay held, which can stall that connection, not the recovering node.
func (c *conn) recoverPanic(err *error) {
	r := recover()
	if r == nil {
		return
	}
	c.node.handlerPanics.Add(1)
	c.node.log.Error("panic below a peer connection: dropping the peer", "conn", c, "panic", r, "stack", string(debug.Stack()))
	e := fmt.Errorf("%w: %v", errHandlerPanic, r)
	if err != nil {
		*err = e
		return
	}
	c.node.dropConn(c, e)
}

// HandlerPanics is how many panics below peer connections the node has
// recovered since the start, each dropping its peer: the metrics'
// gonero_p2p_panics_total.
func (n *Node) HandlerPanics() uint64 { return n.handlerPanics.Load() }

// handle dispatches one message. A returned error drops the connection.
func (c *conn) handle(m levin.Message) error {
	switch m.Kind {
	case levin.KindResponse:
		c.pmu.Lock()
		if len(c.pending) == 0 {
			c.pmu.Unlock()
			// monerod: "no active invoke when response came", closed
			// without a fail.
			return misbehaved(0, "a response (command %d) came with no invoke outstanding", m.Command)
		}
		ch := c.pending[0]
		c.pending = c.pending[1:]
		c.pmu.Unlock()
		ch <- m
		if m.Command == levin.CommandHandshake && !c.inbound {
			select {
			case <-c.handshaken:
			case <-c.done:
			}
		}
		return nil
	case levin.KindRequest:
		return c.handleInvoke(m)
	case levin.KindNotification:
		return c.handleNotification(m)
	}
	return misbehaved(0, "unexpected message kind %v", m.Kind)
}

// meter is monerod's per-connection speed meter (network_throttle): bytes
// per one-second slot over the last meterSlots seconds.
type meter struct {
	mu    sync.Mutex // L9, a leaf
	slots [meterSlots]uint64
	last  int64 // second of the newest slot
}

const meterSlots = 10

func (m *meter) add(now time.Time, n int) {
	m.mu.Lock()
	m.advance(now.Unix())
	m.slots[m.last%meterSlots] += uint64(n)
	m.mu.Unlock()
}

// advance clears the slots of the seconds that passed since the last write.
func (m *meter) advance(sec int64) {
	if sec <= m.last {
		return
	}
	gap := sec - m.last
	if gap > meterSlots {
		gap = meterSlots
	}
	for i := int64(1); i <= gap; i++ {
		m.slots[(m.last+i)%meterSlots] = 0
	}
	m.last = sec
}

// speed is the average bytes per second over the complete slots (the
// current second excluded), as get_current_speed averages its history.
func (m *meter) speed(now time.Time) uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.advance(now.Unix())
	var sum uint64
	for i := int64(1); i < meterSlots; i++ {
		sum += m.slots[(m.last-i+meterSlots*2)%meterSlots]
	}
	return sum / (meterSlots - 1)
}

func hexID(b [16]byte) string { return hex.EncodeToString(b[:]) }

// Package zmqrpc is monerod's ZMQ RPC server (--zmq-rpc-bind-ip/port): a
// ZMQ REP socket answering JSON-RPC 2.0 requests with the methods, JSON and
// error answers of monerod 0.18.5's src/rpc/zmq_server.cpp and
// daemon_handler.cpp, for light-wallet servers (monero-lws) that speak
// nothing else. What it reads of the node comes through the interfaces in
// backend.go.
//
// The ZMTP handshake is go-zeromq's; the REP envelope handling, framing and
// limits are ours, so that every connection is served by its own goroutine
// with bounded memory (go-zeromq's REP socket reads frames of any declared
// size and serialises every peer through one queue).
package zmqrpc

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zeromq/zmq4"
	"github.com/go-zeromq/zmq4/security/null"

	"github.com/gonero/gonero/internal/addrgroup"
	"github.com/gonero/gonero/internal/boundedcache"
	"github.com/gonero/gonero/membudget"
)

// Limits.
const (
	// MaxMessage is monerod's net::zmq::max_message_size (10 MiB): one
	// frame bigger than this closes the connection (libzmq's
	// ZMQ_MAXMSGSIZE); a request whose frames add up to more is answered
	// "Request too large".
	MaxMessage = 10 << 20
	// MaxConns bounds the connections served at once; more are closed at
	// once (libzmq has no limit but the process's descriptors), unless
	// they take the slot of a group holding two more (fair.go).
	MaxConns = 256
	// MaxInFlight bounds the request bytes held by all connections
	// together; a connection waits for room before reading a frame's body.
	MaxInFlight = 64 << 20
	// HandshakeTimeout bounds the ZMTP greeting and handshake.
	HandshakeTimeout = 10 * time.Second
	// WriteTimeout bounds sending one answer; WriteIdle how long a peer
	// may accept none of it (one that does not read is dropped then).
	WriteTimeout = 60 * time.Second
	WriteIdle    = 10 * time.Second
	// MaxAnswerBytes bounds the answers rendered and not yet sent, all
	// connections together: an answer waits for room (BudgetWait at most,
	// then its connection is dropped) before the next request is
	// answered, so peers that never read hold at most this much.
	MaxAnswerBytes = 128 << 20
	// MessageTimeout bounds reading one request once its first frame has
	// begun; BudgetWait how long a frame waits for room in MaxInFlight
	// (the connection is dropped after).
	MessageTimeout = 60 * time.Second
	BudgetWait     = 10 * time.Second
	// BlockCacheBytes bounds the rendered blocks kept for get_blocks_fast.
	BlockCacheBytes = 64 << 20
	// maxEnvelope bounds the routing frames before a request's delimiter.
	maxEnvelope = 64
)

// Config is the server's configuration.
type Config struct {
	// Addr is where to listen, host:port (monerod's --zmq-rpc-bind-ip and
	// --zmq-rpc-bind-port; port 0 picks one, see Addr).
	Addr string
	// Restricted is monerod's --restricted-zmq-rpc: the methods of its
	// blocked list are refused and some answers capped.
	Restricted bool
	// Version is get_info's version (monerod's MONERO_VERSION, "" when
	// restricted); StartTime its start_time (New's time when zero).
	Version   string
	StartTime time.Time
	Log       *slog.Logger
	// MaxConnsPerPublicHost and MaxConnsPerPrivateHost bound the
	// connections of one address (a public IPv6 /64 is one), as monerod's
	// --rpc-max-connections-per-public-ip and -per-private-ip bound its
	// HTTP RPC's (monerod's ZMQ RPC has no such bound); 0: those defaults,
	// 3 and 25 (fair.go).
	MaxConnsPerPublicHost, MaxConnsPerPrivateHost int
	// Memory is the node's memory budget (--memory-budget): the request
	// and answer bytes draw on it beside the HTTP RPC's and P2P's, each
	// part within its own bound (MaxInFlight and MaxAnswerBytes, or a
	// quarter and a half of the total when smaller), so that a ZMQ flood
	// and the others together stay within the one total. Nil: a budget
	// of their own, MaxInFlight and MaxAnswerBytes.
	Memory *membudget.Budget
}

// Server is a running ZMQ RPC server.
type Server struct {
	cfg    Config
	log    *slog.Logger
	chain  Chain
	pool   Pool
	submit Submitter
	peers  Peers
	miner  Miner

	ln       net.Listener
	requests *fairBytes // request bytes (MaxInFlight), per address group
	answers  *fairBytes // answer bytes not yet sent (MaxAnswerBytes), per address group
	ctx      context.Context
	cancel   context.CancelFunc

	// blocks keeps rendered get_blocks_fast blocks; rct the amount-0
	// output counts get_output_distribution last read.
	blocks *boundedcache.Cache[blockKey, *renderedBlock]
	rct    rctCache
	dist   distCache
	// repeat is the last answer to a get_output_distribution request,
	// kept with the request's bytes (see handle).
	repeat atomic.Pointer[repeatAnswer]

	handling *fairSlots // one slot per request being answered
	// MessageTimeout, BudgetWait and WriteIdle (smaller in tests).
	messageTimeout, budgetWait, writeIdle time.Duration
	// maxAnswer: the most one answer claims (a larger one is held as
	// this much): what large claims may fill of MaxAnswerBytes.
	maxAnswer             int64
	maxPublic, maxPrivate int

	mu       sync.Mutex
	conns    map[*peerConn]struct{} // nil once closed
	perHost  map[netip.Addr]int
	perGroup map[netip.Addr]int
	// lastSizes: each group's last answer size per method (fair.go).
	lastSizes map[netip.Addr]map[string]int64
	// refusedHost, refusedTotal, evicted: connections refused for the
	// per-host bound, at MaxConns, and closed for a newcomer (fair.go).
	refusedHost, refusedTotal, evicted uint64
	// held: refused connections waiting to be closed (fair.go's hold);
	// reaping: the goroutine closing them runs.
	held    []heldConn
	reaping bool
	wg      sync.WaitGroup
	once    sync.Once
}

// Backend is what the server reads of the node and acts on. Chain is
// required; a nil Pool serves an empty pool, a nil Submit refuses
// transactions, a nil Peers is an offline node, a nil Miner never mines.
type Backend struct {
	Chain  Chain
	Pool   Pool
	Submit Submitter
	Peers  Peers
	Miner  Miner
}

// New makes a server. It listens once Start is called.
func New(cfg Config, b Backend) (*Server, error) {
	if b.Chain == nil {
		return nil, errors.New("zmq-rpc: no chain")
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.StartTime.IsZero() {
		cfg.StartTime = time.Now()
	}
	if b.Peers == nil {
		b.Peers = noPeers{}
	}
	if cfg.MaxConnsPerPublicHost <= 0 {
		cfg.MaxConnsPerPublicHost = addrgroup.MaxPerPublicHost
	}
	if cfg.MaxConnsPerPrivateHost <= 0 {
		cfg.MaxConnsPerPrivateHost = addrgroup.MaxPerPrivateHost
	}
	requests, answers := newFairBytes(cfg.Memory, MaxInFlight, requestShareDiv), newFairBytes(cfg.Memory, MaxAnswerBytes, answerShareDiv)
	ctx, cancel := context.WithCancel(context.Background())
	return &Server{cfg: cfg, log: cfg.Log, chain: b.Chain, pool: b.Pool, submit: b.Submit, peers: b.Peers, miner: b.Miner,
		blocks:   boundedcache.New[blockKey, *renderedBlock](BlockCacheBytes, 0, func(b *renderedBlock) int { return len(b.json) + len(b.indices) + 64 }),
		requests: requests, answers: answers,
		// membudget lets large claims fill 7/8 of a total.
		maxAnswer: answers.limit - answers.limit/8,
		// One processor fewer than the machine has (at least one):
		// rendering never takes every core from the node's other work
		// (the HTTP RPC's meter keeps the same margin).
		handling:       newFairSlots(max(1, runtime.NumCPU()-1)),
		messageTimeout: MessageTimeout, budgetWait: BudgetWait, writeIdle: WriteIdle, ctx: ctx, cancel: cancel,
		maxPublic: cfg.MaxConnsPerPublicHost, maxPrivate: cfg.MaxConnsPerPrivateHost,
		conns: map[*peerConn]struct{}{}, perHost: map[netip.Addr]int{}, perGroup: map[netip.Addr]int{},
		lastSizes: map[netip.Addr]map[string]int64{}}, nil
}

// ConnStats are what the connection rules did since start (the metrics).
type ConnStats struct {
	Open int // connections open now
	// RefusedPerHost: refused for the per-address bound; RefusedTotal: at
	// MaxConns with no slot of a larger group to take; Evicted: closed
	// to give their slot to a newcomer of a smaller group.
	RefusedPerHost, RefusedTotal, Evicted uint64
}

// ConnStats reports the connection counts.
func (s *Server) ConnStats() ConnStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return ConnStats{Open: len(s.conns), RefusedPerHost: s.refusedHost, RefusedTotal: s.refusedTotal, Evicted: s.evicted}
}

// MemoryParts reports the request and answer bytes held (the metrics):
// zmq_rpc_requests and zmq_rpc_answers, each with its own bound.
func (s *Server) MemoryParts() map[string]membudget.Stats {
	return map[string]membudget.Stats{"zmq_rpc_requests": s.requests.acct.Stats(), "zmq_rpc_answers": s.answers.acct.Stats()}
}

// now is the clock (get_output_histogram's restricted cutoff).
func (s *Server) now() time.Time { return time.Now() }

// Start binds Config.Addr and serves until Close.
func (s *Server) Start() error {
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return fmt.Errorf("zmq-rpc: %w", err)
	}
	s.ln = ln
	s.wg.Add(1)
	go s.accept()
	return nil
}

// Addr is the bound address.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Close stops listening, drops every connection and waits for every
// goroutine to end.
func (s *Server) Close() error {
	s.once.Do(func() {
		s.cancel()
		if s.ln != nil {
			_ = s.ln.Close()
		}
		s.mu.Lock()
		for c := range s.conns {
			_ = c.Close()
		}
		s.conns = nil
		s.mu.Unlock()
	})
	s.wg.Wait()
	return nil
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			if s.ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			time.Sleep(50 * time.Millisecond) // out of descriptors: as net/http does
			continue
		}
		pc := s.newPeerConn(c)
		if why := s.admit(pc); why != "" {
			pc.cancel()
			s.hold(c)
			s.log.Debug("zmq-rpc: connection refused", "remote", c.RemoteAddr(), "reason", why)
			continue
		}
		go func() { // admit counted it in s.wg
			defer s.wg.Done()
			s.serve(pc)
			s.mu.Lock()
			s.uncountLocked(pc)
			s.mu.Unlock()
			pc.cancel()
			_ = c.Close()
		}()
	}
}

// handshake is go-zeromq's ZMTP handshake as a REP socket (it accepts REQ
// and DEALER peers, as libzmq's REP does). A panic on a malformed peer
// (zmqpub's fuzzing found some) drops the connection instead of the node.
func handshake(c net.Conn) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("handshake: %v", r)
		}
	}()
	_, err = zmq4.Open(c, null.Security(), zmq4.Rep, zmq4.SocketIdentity(nil), true, nil)
	return err
}

// guard refuses, before anything reads it, a frame longer than MaxMessage
// during the handshake (go-zeromq allocates what a frame declares).
type guard struct {
	net.Conn
	limit uint64
	left  int
	flags byte
	size  []byte
	body  uint64
	err   error
}

func (g *guard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.Conn.Read(p)
	for _, c := range p[:n] {
		switch {
		case g.left > 0: // greeting or body
			g.left--
		case g.body > 0:
			g.body--
		case g.size == nil:
			if c&0xf8 != 0 {
				g.err = fmt.Errorf("reserved frame flags %#x", c)
				return 0, g.err
			}
			g.flags = c
			g.size = make([]byte, 0, 8)
		default:
			g.size = append(g.size, c)
			want := 1
			if g.flags&2 != 0 {
				want = 8
			}
			if len(g.size) == want {
				var v uint64
				for _, x := range g.size {
					v = v<<8 | uint64(x)
				}
				if v > g.limit {
					g.err = errors.New("frame bigger than the limit")
					return 0, g.err
				}
				g.body, g.size = v, nil
			}
		}
	}
	return n, err
}

// serve handshakes, then answers the peer's requests in order.
func (s *Server) serve(pc *peerConn) {
	c := pc.Conn
	_ = c.SetDeadline(time.Now().Add(HandshakeTimeout))
	if err := handshake(&guard{Conn: c, limit: 64 << 10, left: 64}); err != nil {
		s.log.Debug("zmq-rpc: handshake failed", "remote", c.RemoteAddr(), "err", err)
		return
	}
	_ = c.SetDeadline(time.Time{})
	r := bufio.NewReaderSize(c, 16<<10)
	pw := &progressWriter{c: c, idle: s.writeIdle}
	bw := bufio.NewWriterSize(pw, 64<<10)
	for {
		pc.markIdle()
		env, body, tooLarge, err := s.readRequest(pc.ctx, pc.group, r, func() {
			pc.markBusy()
			// Once a message has begun, the rest must come in time: a
			// peer trickling a big frame would hold its budget.
			_ = c.SetReadDeadline(time.Now().Add(s.messageTimeout))
		})
		_ = c.SetReadDeadline(time.Time{})
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				s.log.Debug("zmq-rpc: peer dropped", "remote", c.RemoteAddr(), "err", err)
			}
			return
		}
		answer, lease, ok := s.answer(pc, body, tooLarge)
		if !ok {
			s.log.Debug("zmq-rpc: no room for an answer", "remote", c.RemoteAddr())
			return
		}
		pw.deadline = time.Now().Add(WriteTimeout)
		for _, f := range env {
			writeFrame(bw, f, true)
		}
		writeAnswerFrame(bw, answer)
		err = bw.Flush()
		s.answers.releaseLease(&lease)
		if err != nil {
			return
		}
	}
}

// answer renders the answer to body (the request's bytes, given back
// here) within the answers' budget: false, holding nothing, when no room
// came in time.
//
// Room is reserved before rendering (answerReserve), so that no answer is
// rendered while peers that do not read hold all of it; a bigger answer
// takes the rest once rendered. If the rest does not fit, the rendered
// answer is dropped and its handling slot given back while it waits for
// that much room, then rendered again: a group waiting for its own
// answers to leave never holds a slot another group's get_height needs,
// and no rendered answer waits unclaimed.
func (s *Server) answer(pc *peerConn, body []byte, tooLarge bool) (answer, membudget.Lease[netip.Addr], bool) {
	g := pc.group
	lease := membudget.NewLease(s.answers.acct, g)
	defer s.requests.release(g, int64(len(body)))
	// Clients ask the same methods again (a light-wallet server's
	// get_blocks_fast, a flood's): the size of the group's last answer to
	// the method is reserved, so that an answer that would not fit waits
	// before it is rendered, not after.
	name := requestMethod(body)
	if !s.answers.grow(pc.ctx, &lease, g, min(max(answerReserve, s.lastAnswer(g, name)), s.maxAnswer), s.budgetWait) {
		return answer{}, lease, false
	}
	if tooLarge {
		return answer{b: errorAnswer(nil, statusTooLarge, msgRequestTooLarge)}, lease, true
	}
	// Answers can be big (get_blocks_fast): a few at a time, but for the
	// methods whose answers are always small, which never wait behind
	// another's big answer being rendered.
	slot := s.handling
	if cheapMethods[name] {
		slot = nil
	}
	for attempt := 0; ; attempt++ {
		if !slot.acquire(pc.ctx, g) {
			s.answers.releaseLease(&lease)
			return answer{}, lease, false
		}
		a := s.handleParts(body)
		s.setLastAnswer(g, name, int64(a.size()))
		size := min(int64(a.size()), s.maxAnswer)
		need := size - lease.Held()
		if need <= 0 || lease.Grow(need) {
			slot.release(g)
			return a, lease, true
		}
		if attempt >= 2 { // grown twice while it waited: wait with it
			ok := s.answers.grow(pc.ctx, &lease, g, need, s.budgetWait)
			slot.release(g)
			if !ok {
				s.answers.releaseLease(&lease)
			}
			return a, lease, ok
		}
		// It waits holding nothing: neither a slot nor its reservation
		// (which, small, would hold the room kept for small claims).
		slot.release(g)
		s.answers.releaseLease(&lease)
		a = answer{}
		if !s.answers.grow(pc.ctx, &lease, g, size, s.budgetWait) {
			return answer{}, lease, false
		}
	}
}

// answerReserve is the room an answer reserves before it is rendered:
// small, so that the reservations of all connections (MaxConns of them)
// leave most of the budget to answers being sent.
const answerReserve = 64 << 10

// progressWriter writes to a peer that must accept some of each write
// within idle, and all of an answer by deadline.
type progressWriter struct {
	c        net.Conn
	idle     time.Duration
	deadline time.Time
}

func (w *progressWriter) Write(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		d := time.Now().Add(w.idle)
		if !w.deadline.IsZero() && w.deadline.Before(d) {
			d = w.deadline
		}
		_ = w.c.SetWriteDeadline(d)
		k, err := w.c.Write(p[n:min(len(p), n+64<<10)])
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// writeAnswerFrame writes a as the message's last frame, its pieces one
// after the other.
func writeAnswerFrame(w *bufio.Writer, a answer) {
	if a.parts == nil {
		writeFrame(w, a.b, false)
		return
	}
	writeFrameHeader(w, a.n, false)
	for _, p := range a.parts {
		_, _ = w.Write(p)
	}
	_, _ = w.Write(a.b)
}

func writeFrame(w *bufio.Writer, body []byte, more bool) {
	writeFrameHeader(w, len(body), more)
	_, _ = w.Write(body)
}

func writeFrameHeader(w *bufio.Writer, size int, more bool) {
	var flags byte
	if more {
		flags = 1
	}
	if size > 255 {
		var b [9]byte
		b[0] = flags | 2
		binary.BigEndian.PutUint64(b[1:], uint64(size))
		_, _ = w.Write(b[:])
	} else {
		_, _ = w.Write([]byte{flags, byte(size)})
	}
}

// frameHeader reads a frame's flags and size. Commands (PING and the like)
// are read and skipped by the caller.
func frameHeader(r *bufio.Reader) (flags byte, size uint64, err error) {
	flags, err = r.ReadByte()
	if err != nil {
		return 0, 0, err
	}
	if flags&0xf8 != 0 {
		return 0, 0, fmt.Errorf("reserved frame flags %#x", flags)
	}
	if flags&2 != 0 {
		var b [8]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return 0, 0, err
		}
		size = binary.BigEndian.Uint64(b[:])
	} else {
		b, err := r.ReadByte()
		if err != nil {
			return 0, 0, err
		}
		size = uint64(b)
	}
	if size > MaxMessage {
		return 0, 0, errors.New("frame bigger than the maximum message size")
	}
	return flags, size, nil
}

// readRequest reads messages until one is a request as libzmq's REP sees
// it: routing frames up to an empty delimiter, then the body's frames,
// which monerod concatenates. A message without a delimiter is dropped
// whole, as REP drops it. Bodies adding up to more than MaxMessage are
// read and discarded (tooLarge). The body's bytes are held against the
// server's budget, for address group g: the caller releases them.
func (s *Server) readRequest(ctx context.Context, g netip.Addr, r *bufio.Reader, started func()) (env [][]byte, body []byte, tooLarge bool, err error) {
	for {
		env, body, tooLarge = env[:0], nil, false
		msg := membudget.NewLease(s.requests.acct, g)
		inBody, dropped := false, false
		for first := true; ; first = false {
			flags, size, err := frameHeader(r)
			if err != nil {
				if body != nil {
					s.requests.release(g, int64(len(body)))
				}
				return nil, nil, false, err
			}
			if first && started != nil {
				started()
			}
			more := flags&1 != 0
			if flags&4 != 0 { // a command: not part of any message
				if _, err := r.Discard(int(size)); err != nil {
					return nil, nil, false, err
				}
				continue
			}
			switch {
			case !inBody && !dropped:
				if !more { // no delimiter before the last frame
					dropped = true
					if _, err := r.Discard(int(size)); err != nil {
						return nil, nil, false, err
					}
					break
				}
				if len(env) >= maxEnvelope || size > 255 {
					return nil, nil, false, errors.New("routing envelope too big")
				}
				f := make([]byte, size)
				if _, err := io.ReadFull(r, f); err != nil {
					return nil, nil, false, err
				}
				env = append(env, f)
				if size == 0 {
					inBody = true
				}
			case dropped || tooLarge:
				if _, err := r.Discard(int(size)); err != nil {
					return nil, nil, false, err
				}
			default:
				if uint64(len(body))+size > MaxMessage {
					if body != nil {
						s.requests.release(g, int64(len(body)))
					}
					body, tooLarge = nil, true
					msg = membudget.NewLease(s.requests.acct, g)
					if _, err := r.Discard(int(size)); err != nil {
						return nil, nil, false, err
					}
					break
				}
				// A bounded wait: connections each holding part of the
				// budget and waiting for more would otherwise wait forever.
				// (No timer when there is room at once.)
				// The message's frames grow one lease: a message that
				// is its group's only holding may pass the group's share
				// (its bytes are given back by count, len(body)).
				if !s.requests.grow(ctx, &msg, g, int64(size), s.budgetWait) {
					err := errors.New("no room for the request")
					if body != nil {
						s.requests.release(g, int64(len(body)))
					}
					return nil, nil, false, err
				}
				if body == nil {
					body = make([]byte, 0, size)
				}
				n := len(body)
				body = append(body, make([]byte, size)...)
				if _, err := io.ReadFull(r, body[n:]); err != nil {
					s.requests.release(g, int64(len(body)))
					return nil, nil, false, err
				}
			}
			if !more {
				break
			}
		}
		if dropped {
			continue
		}
		if body == nil && !tooLarge {
			body = []byte{}
		}
		return env, body, tooLarge, nil
	}
}

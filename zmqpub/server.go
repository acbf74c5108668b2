// Package zmqpub is monerod's ZMQ publisher (--zmq-pub): chain, pool and
// miner-data events as "topic:json" messages on a ZMQ XPUB endpoint, with
// the topics, JSON and moments of monerod 0.18 (src/rpc/zmq_pub.cpp). It
// knows nothing of RPC: the node hands it events (see Follow).
//
// The ZMTP handshake is go-zeromq's; the fan-out is ours, because
// go-zeromq's PUB socket writes to every subscriber from one goroutine, so
// one subscriber that stops reading stalls all of them. Here every
// subscriber has its own bounded queue and writer, and a message that finds
// the queue full is dropped for that subscriber alone, as libzmq drops at
// its send high-water mark.
package zmqpub

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zeromq/zmq4"
	"github.com/go-zeromq/zmq4/security/null"

	"github.com/gonero/gonero/cryptonote"
)

// Limits.
const (
	// MaxSubscribers bounds the connections served at once (handshaking
	// ones included); further connections are closed at once. libzmq has
	// no such limit but the process's file descriptors.
	MaxSubscribers = 1024
	// QueueLen is each subscriber's queue, in messages: libzmq's default
	// ZMQ_SNDHWM, which monerod leaves as is.
	QueueLen = 1000
	// QueueBytes bounds the bytes of each subscriber's queue as well: with
	// full-chain messages of big blocks, 1000 messages could be a gigabyte
	// (messages are shared between subscribers, so this bounds the total
	// too, whatever the number of stalled subscribers).
	QueueBytes = 64 << 20
	// MaxPrefixes bounds one subscriber's subscriptions; more are ignored.
	MaxPrefixes = 256
	// HandshakeTimeout bounds the ZMTP greeting and handshake.
	HandshakeTimeout = 10 * time.Second
	// eventQueue bounds the events waiting to be rendered.
	eventQueue = 4096
)

// Publisher serves the subscribers of one or more endpoints.
type Publisher struct {
	log       *slog.Logger
	listeners []net.Listener

	mu       sync.Mutex
	subs     map[*subscriber]struct{}
	all      map[net.Conn]struct{} // every connection, handshaking ones too
	counts   [5]int                // per topic: subscriptions naming a prefix of it
	interest atomic.Uint32         // topicBit set of counts > 0
	conns    atomic.Int64

	events  chan func()
	closed  chan struct{}
	once    sync.Once
	wg      sync.WaitGroup
	dropped atomic.Uint64 // messages dropped at full subscriber queues
	lost    atomic.Uint64 // events dropped at the full event queue
}

type subscriber struct {
	conn     net.Conn
	zc       *zmq4.Conn
	prefixes map[string]struct{}
	queue    chan []byte
	queued   atomic.Int64 // bytes in queue
	done     chan struct{}
}

// Listen binds every address (monerod's --zmq-pub syntax: tcp://IP:PORT,
// tcp://*:PORT, ipc://PATH) and starts serving.
func Listen(addrs []string, log *slog.Logger) (*Publisher, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	p := &Publisher{log: log, subs: map[*subscriber]struct{}{}, all: map[net.Conn]struct{}{}, events: make(chan func(), eventQueue),
		closed: make(chan struct{})}
	for _, a := range addrs {
		l, err := listen(a)
		if err != nil {
			p.closeListeners()
			return nil, err
		}
		p.listeners = append(p.listeners, l)
	}
	for _, l := range p.listeners {
		p.wg.Add(1)
		go p.accept(l)
	}
	p.wg.Add(1)
	go p.work()
	return p, nil
}

func listen(addr string) (net.Listener, error) {
	switch {
	case strings.HasPrefix(addr, "tcp://"):
		hp := strings.TrimPrefix(addr, "tcp://")
		host, port, err := net.SplitHostPort(hp)
		if err != nil || port == "" {
			return nil, fmt.Errorf("zmq-pub %q: want tcp://IP:PORT", addr)
		}
		if host == "*" {
			host = ""
		}
		l, err := net.Listen("tcp", net.JoinHostPort(host, port))
		if err != nil {
			return nil, fmt.Errorf("zmq-pub %q: %w", addr, err)
		}
		return l, nil
	case strings.HasPrefix(addr, "ipc://"):
		path := strings.TrimPrefix(addr, "ipc://")
		if path == "" {
			return nil, fmt.Errorf("zmq-pub %q: no path", addr)
		}
		// libzmq unlinks whatever socket is left at the path before binding.
		if fi, err := os.Lstat(path); err == nil && fi.Mode().Type() == fs.ModeSocket {
			_ = os.Remove(path)
		}
		l, err := net.Listen("unix", path)
		if err != nil {
			return nil, fmt.Errorf("zmq-pub %q: %w", addr, err)
		}
		return l, nil
	}
	return nil, fmt.Errorf("zmq-pub %q: want tcp://IP:PORT or ipc://PATH", addr)
}

// Addrs returns the bound addresses (useful with port 0).
func (p *Publisher) Addrs() []net.Addr {
	out := make([]net.Addr, len(p.listeners))
	for i, l := range p.listeners {
		out[i] = l.Addr()
	}
	return out
}

func (p *Publisher) closeListeners() {
	for _, l := range p.listeners {
		_ = l.Close()
	}
}

// Close stops serving and waits for every goroutine to end.
func (p *Publisher) Close() error {
	p.once.Do(func() {
		close(p.closed)
		p.closeListeners()
		p.mu.Lock()
		for c := range p.all {
			_ = c.Close()
		}
		p.mu.Unlock()
	})
	p.wg.Wait()
	return nil
}

// Stats reports the subscribers connected and the messages and events
// dropped so far.
func (p *Publisher) Stats() (subscribers int, droppedMessages, droppedEvents uint64) {
	p.mu.Lock()
	n := len(p.subs)
	p.mu.Unlock()
	return n, p.dropped.Load(), p.lost.Load()
}

func (p *Publisher) accept(l net.Listener) {
	defer p.wg.Done()
	for {
		c, err := l.Accept()
		if err != nil {
			select {
			case <-p.closed:
				return
			default:
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of descriptors and the like: wait a little, as net/http does.
			time.Sleep(50 * time.Millisecond)
			continue
		}
		if p.conns.Add(1) > MaxSubscribers {
			p.conns.Add(-1)
			_ = c.Close()
			continue
		}
		p.mu.Lock()
		select {
		case <-p.closed:
			p.mu.Unlock()
			p.conns.Add(-1)
			_ = c.Close()
			return
		default:
		}
		p.all[c] = struct{}{}
		p.mu.Unlock()
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			defer p.conns.Add(-1)
			p.serve(c)
			p.mu.Lock()
			delete(p.all, c)
			p.mu.Unlock()
		}()
	}
}

// serve handshakes, then reads the subscriber's subscriptions until it
// goes away; a writer goroutine sends its queue.
func (p *Publisher) serve(c net.Conn) {
	defer c.Close()
	g := &guardConn{Conn: c, s: newFrameScanner(MaxFrame)}
	_ = c.SetDeadline(time.Now().Add(HandshakeTimeout))
	zc, err := handshake(g)
	if err != nil {
		p.log.Debug("zmq: handshake failed", "remote", c.RemoteAddr(), "err", err)
		return
	}
	_ = c.SetDeadline(time.Time{})
	s := &subscriber{conn: c, zc: zc, prefixes: map[string]struct{}{}, queue: make(chan []byte, QueueLen),
		done: make(chan struct{})}
	p.mu.Lock()
	p.subs[s] = struct{}{}
	p.mu.Unlock()
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		s.write()
	}()
	p.readSubscriptions(s, bufio.NewReaderSize(g, 4096))
	p.mu.Lock()
	delete(p.subs, s)
	for prefix := range s.prefixes {
		p.countLocked(prefix, -1)
	}
	p.mu.Unlock()
	close(s.done)
	_ = c.Close()
	<-writerDone
}

// handshake is go-zeromq's ZMTP handshake as the publishing side. It panics
// on some malformed peers (a READY without a known Socket-Type: found by
// FuzzSubscriberStream); a panic here would end the node, so it is turned
// into an error that drops the connection.
func handshake(c net.Conn) (zc *zmq4.Conn, err error) {
	defer func() {
		if r := recover(); r != nil {
			zc, err = nil, fmt.Errorf("handshake: %v", r)
		}
	}()
	return zmq4.Open(c, null.Security(), zmq4.XPub, zmq4.SocketIdentity(nil), true, nil)
}

func (p *Publisher) readSubscriptions(s *subscriber, r *bufio.Reader) {
	for {
		m, err := readMessage(r, MaxFrame)
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				p.log.Debug("zmq: subscriber dropped", "remote", s.conn.RemoteAddr(), "err", err)
			}
			return
		}
		sub, prefix, ok := m.subscription()
		if !ok {
			continue
		}
		p.mu.Lock()
		_, had := s.prefixes[prefix]
		switch {
		case sub && !had && len(s.prefixes) < MaxPrefixes:
			s.prefixes[prefix] = struct{}{}
			p.countLocked(prefix, 1)
		case !sub && had:
			delete(s.prefixes, prefix)
			p.countLocked(prefix, -1)
		}
		p.mu.Unlock()
	}
}

// countLocked adds d to the counts of the topics prefix selects (p.mu held).
func (p *Publisher) countLocked(prefix string, d int) {
	bits := interestOf(prefix)
	var set uint32
	for i := range p.counts {
		if bits&(1<<i) != 0 {
			p.counts[i] += d
		}
		if p.counts[i] > 0 {
			set |= 1 << i
		}
	}
	p.interest.Store(set)
}

func (s *subscriber) write() {
	for {
		select {
		case <-s.done:
			return
		case msg := <-s.queue:
			s.queued.Add(-int64(len(msg)))
			// One frame, "topic:json", as monerod sends it.
			if err := s.zc.SendMsg(zmq4.NewMsg(msg)); err != nil {
				_ = s.conn.Close() // the reader sees it and cleans up
				<-s.done
				return
			}
		}
	}
}

// wants reports whether some subscription selects a topic.
func (p *Publisher) wants(bits topicBit) bool { return topicBit(p.interest.Load())&bits != 0 }

// deliver queues msg for every subscriber with a subscription that
// prefixes it (ZMQ's filter), never waiting.
func (p *Publisher) deliver(msg []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for s := range p.subs {
		for prefix := range s.prefixes {
			if len(msg) >= len(prefix) && string(msg[:len(prefix)]) == prefix {
				if s.queued.Load()+int64(len(msg)) > QueueBytes {
					p.dropped.Add(1)
					break
				}
				select {
				case s.queue <- msg:
					s.queued.Add(int64(len(msg)))
				default:
					p.dropped.Add(1)
				}
				break
			}
		}
	}
}

// enqueue hands an event to the renderer, never waiting: with the queue
// full the event is lost (and counted), so a stalled renderer cannot slow
// block import or the pool.
func (p *Publisher) enqueue(fn func()) {
	select {
	case p.events <- fn:
	default:
		if p.lost.Add(1)%1000 == 1 {
			p.log.Warn("zmq: event queue full, events dropped", "dropped", p.lost.Load())
		}
	}
}

func (p *Publisher) work() {
	defer p.wg.Done()
	for {
		select {
		case <-p.closed:
			return
		case fn := <-p.events:
			fn()
		}
	}
}

// Flush waits until every event queued before it was rendered and handed to
// the subscribers' queues.
func (p *Publisher) Flush() {
	done := make(chan struct{})
	select {
	case p.events <- func() { close(done) }:
	case <-p.closed:
		return
	}
	select {
	case <-done:
	case <-p.closed:
	}
}

// ChainMain publishes blocks that joined the main chain, the first at
// height (zmq_pub::send_chain_main).
func (p *Publisher) ChainMain(height uint64, blocks []*cryptonote.Block, ids []cryptonote.Hash) {
	if len(blocks) == 0 || !p.wants(bitFullChain|bitMinimalChain) {
		return
	}
	p.enqueue(func() {
		if p.wants(bitFullChain) {
			p.deliver(renderFullChain(blocks))
		}
		if p.wants(bitMinimalChain) {
			p.deliver(renderMinimalChain(height, blocks, ids))
		}
	})
}

// WantsMinerData reports whether a miner_data event would be published,
// so that the caller gathers its facts only then.
func (p *Publisher) WantsMinerData() bool { return p.wants(bitMinerData) }

// MinerData publishes json-full-miner_data.
func (p *Publisher) MinerData(m *MinerData) {
	if !p.wants(bitMinerData) {
		return
	}
	p.enqueue(func() {
		if p.wants(bitMinerData) {
			p.deliver(renderMinerData(m))
		}
	})
}

// TxpoolAdd publishes transactions that entered the pool.
func (p *Publisher) TxpoolAdd(txs []TxEvent) {
	if len(txs) == 0 || !p.wants(bitFullTxpool|bitMinimalTxpool) {
		return
	}
	p.enqueue(func() {
		if p.wants(bitFullTxpool) {
			p.deliver(renderFullTxpool(txs))
		}
		if p.wants(bitMinimalTxpool) {
			p.deliver(renderMinimalTxpool(txs))
		}
	})
}

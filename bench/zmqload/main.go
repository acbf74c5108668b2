// Command zmqload measures a ZMQ RPC server's throughput: C REQ sockets,
// each sending one JSON-RPC request and waiting for its answer, in a loop,
// for a fixed time. bench/zmqrpc.sh runs it against gonerod and monerod in
// turn, from its own process (and CPU), as a light-wallet server would be.
//
//	zmqload -addr 127.0.0.1:PORT -req JSON [-c CONNS] [-d DURATION] [-w WARMUP] [-expect SUBSTRING]
//
// It prints one line: calls/s, p50 and p99 latency in µs, answers and the
// answer size in bytes. The client is lean on purpose (go-zeromq's
// handshake, then frames written and read by hand, one buffer a socket): a
// heavier one ran out of its core before the servers did. An answer without -expect (default `"result"`), an
// error or a timeout ends the run with exit status 1.
package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/go-zeromq/zmq4"
	"github.com/go-zeromq/zmq4/security/null"
)

func main() {
	addr := flag.String("addr", "", "the ZMQ RPC server, host:port")
	req := flag.String("req", "", "the JSON-RPC request to send")
	conns := flag.Int("c", 1, "REQ sockets, each with one request in flight")
	dur := flag.Duration("d", 10*time.Second, "measured time")
	warm := flag.Duration("w", 2*time.Second, "warm-up before measuring, not counted")
	expect := flag.String("expect", `"result"`, "every answer must contain this")
	timeout := flag.Duration("timeout", 30*time.Second, "the longest one call may take")
	flag.Parse()
	if *addr == "" || *req == "" || *conns < 1 || *conns > 1000 || *dur <= 0 {
		fmt.Fprintln(os.Stderr, "zmqload: -addr and -req are required; -c 1..1000; -d > 0")
		os.Exit(2)
	}
	if err := run(*addr, []byte(*req), *conns, *warm, *dur, *expect, *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "zmqload:", err)
		os.Exit(1)
	}
}

// conn is one REQ peer: a DEALER that writes REQ's empty delimiter frame
// itself (a REP server cannot tell the two apart).
type conn struct {
	c   net.Conn
	r   *bufio.Reader
	w   *bufio.Writer
	buf []byte
}

func dial(addr string) (*conn, error) {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := zmq4.Open(c, null.Security(), zmq4.Dealer, zmq4.SocketIdentity(nil), false, nil); err != nil {
		c.Close()
		return nil, fmt.Errorf("ZMTP handshake: %w", err)
	}
	return &conn{c: c, r: bufio.NewReaderSize(c, 64<<10), w: bufio.NewWriter(c)}, nil
}

// call sends req and returns the answer's body (valid until the next call).
func (cn *conn) call(req []byte, timeout time.Duration) ([]byte, error) {
	_ = cn.c.SetDeadline(time.Now().Add(timeout))
	cn.w.Write([]byte{1, 0}) // the empty delimiter, more to come
	if len(req) > 255 {
		var h [9]byte
		h[0] = 2
		binary.BigEndian.PutUint64(h[1:], uint64(len(req)))
		cn.w.Write(h[:])
	} else {
		cn.w.Write([]byte{0, byte(len(req))})
	}
	cn.w.Write(req)
	if err := cn.w.Flush(); err != nil {
		return nil, err
	}
	frames := 0
	for {
		flags, err := cn.r.ReadByte()
		if err != nil {
			return nil, err
		}
		var size uint64
		if flags&2 != 0 {
			var h [8]byte
			if _, err := io.ReadFull(cn.r, h[:]); err != nil {
				return nil, err
			}
			size = binary.BigEndian.Uint64(h[:])
		} else {
			b, err := cn.r.ReadByte()
			if err != nil {
				return nil, err
			}
			size = uint64(b)
		}
		if size > 256<<20 {
			return nil, fmt.Errorf("a frame of %d bytes", size)
		}
		if uint64(cap(cn.buf)) < size {
			cn.buf = make([]byte, size)
		}
		cn.buf = cn.buf[:size]
		if _, err := io.ReadFull(cn.r, cn.buf); err != nil {
			return nil, err
		}
		if flags&4 != 0 { // a ZMTP command (PING): not part of the answer
			continue
		}
		frames++
		if flags&1 == 0 {
			break
		}
	}
	if frames != 2 {
		return nil, fmt.Errorf("an answer of %d frames, want the delimiter and the body", frames)
	}
	return cn.buf, nil
}

type worker struct {
	lat  []time.Duration // measured calls' latencies
	size int             // the last answer's size
	err  error
}

func run(addr string, req []byte, conns int, warm, dur time.Duration, expect string, timeout time.Duration) error {
	cs := make([]*conn, conns)
	for i := range cs {
		c, err := dial(addr)
		if err != nil {
			return fmt.Errorf("dial %s: %w", addr, err)
		}
		defer c.c.Close()
		cs[i] = c
	}
	start := time.Now()
	measureFrom, end := start.Add(warm), start.Add(warm+dur)
	workers := make([]worker, conns)
	want := []byte(expect)
	var wg sync.WaitGroup
	for i := range cs {
		wg.Add(1)
		go func(cn *conn, w *worker) {
			defer wg.Done()
			for {
				t0 := time.Now()
				if !t0.Before(end) {
					return
				}
				body, err := cn.call(req, timeout)
				if err != nil {
					w.err = err
					return
				}
				t1 := time.Now()
				if !bytes.Contains(body, want) {
					if len(body) > 300 {
						body = body[:300]
					}
					w.err = fmt.Errorf("answer without %s: %s", expect, body)
					return
				}
				w.size = len(body)
				// A call counts when it ended inside the measured window.
				if !t1.Before(measureFrom) && t1.Before(end) {
					w.lat = append(w.lat, t1.Sub(t0))
				}
			}
		}(cs[i], &workers[i])
	}
	wg.Wait()
	var all []time.Duration
	size := 0
	for _, w := range workers {
		if w.err != nil {
			return w.err
		}
		all = append(all, w.lat...)
		size = max(size, w.size)
	}
	if len(all) == 0 {
		return fmt.Errorf("no call finished within %v", dur)
	}
	slices.Sort(all)
	q := func(p float64) float64 { return float64(all[int(p*float64(len(all)-1))].Nanoseconds()) / 1e3 }
	fmt.Printf("calls_per_s=%.1f p50_us=%.1f p99_us=%.1f calls=%d answer_bytes=%d\n",
		float64(len(all))/dur.Seconds(), q(0.50), q(0.99), len(all), size)
	return nil
}

// Package dnstest is a tiny DNS responder for tests: it answers TXT
// queries over TCP on 127.0.0.1 from a fixed table, so that code reading
// DNS (the DNS blocklist) is tested without leaving loopback.
package dnstest

import (
	"encoding/binary"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// Server answers TXT queries for the names in Records (lower case, no
// trailing dot); other names get NXDOMAIN. Authenticated sets the AD flag
// of every answer.
type Server struct {
	Records       map[string][]string
	Authenticated bool
	// Queries counts the questions answered.
	Queries atomic.Int64

	ln net.Listener
	wg sync.WaitGroup
}

// Start serves on a free TCP port of 127.0.0.1 until the test ends; it
// returns the address (host:port).
func (s *Server) Start(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.ln = ln
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				s.serve(c)
			}()
		}
	}()
	t.Cleanup(func() { ln.Close(); s.wg.Wait() })
	return ln.Addr().String()
}

func (s *Server) serve(c net.Conn) {
	defer c.Close()
	for {
		var lb [2]byte
		if _, err := io.ReadFull(c, lb[:]); err != nil {
			return
		}
		q := make([]byte, binary.BigEndian.Uint16(lb[:]))
		if _, err := io.ReadFull(c, q); err != nil {
			return
		}
		a := s.Answer(q)
		if a == nil {
			return
		}
		s.Queries.Add(1)
		out := binary.BigEndian.AppendUint16(nil, uint16(len(a)))
		if _, err := c.Write(append(out, a...)); err != nil {
			return
		}
	}
}

// Answer is the response to query q (nil if q is not a one-question
// query this server reads: uncompressed name, any type).
func (s *Server) Answer(q []byte) []byte {
	if len(q) < 12 || binary.BigEndian.Uint16(q[4:]) != 1 {
		return nil
	}
	off := 12
	var labels []string
	for {
		if off >= len(q) {
			return nil
		}
		l := int(q[off])
		if l == 0 {
			off++
			break
		}
		if l > 63 || off+1+l > len(q) {
			return nil
		}
		labels = append(labels, string(q[off+1:off+1+l]))
		off += 1 + l
	}
	if off+4 > len(q) {
		return nil
	}
	question := q[12 : off+4]
	qtype := binary.BigEndian.Uint16(q[off:])
	name := strings.ToLower(strings.Join(labels, "."))
	recs, ok := s.Records[name]
	flags := uint16(1<<15 | 1<<8 | 1<<7) // QR, RD, RA
	if s.Authenticated {
		flags |= 1 << 5
	}
	if !ok {
		flags |= 3 // NXDOMAIN
	}
	if qtype != 16 {
		recs = nil
	}
	a := make([]byte, 12, 512)
	copy(a, q[:2])
	binary.BigEndian.PutUint16(a[2:], flags)
	binary.BigEndian.PutUint16(a[4:], 1)
	binary.BigEndian.PutUint16(a[6:], uint16(len(recs)))
	a = append(a, question...)
	for _, r := range recs {
		// Name: a pointer to the question's (offset 12).
		a = append(a, 0xc0, 12, 0, 16, 0, 1, 0, 0, 0x0e, 0x10)
		data := []byte(r)
		if len(data) > 255 {
			data = data[:255]
		}
		a = binary.BigEndian.AppendUint16(a, uint16(1+len(data)))
		a = append(a, byte(len(data)))
		a = append(a, data...)
	}
	return a
}

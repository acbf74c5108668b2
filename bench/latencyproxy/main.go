// Command latencyproxy forwards TCP connections to a target and delays
// every chunk of data, each way, by a fixed time: a loopback peer made to
// look like one across a network (a round trip of twice the delay), where
// the kernel's netem is not available. bench/sync.sh --delay puts one in
// front of each source monerod.
//
//	latencyproxy -listen 127.0.0.1:PORT -target 127.0.0.1:PORT -delay 50ms
package main

import (
	"flag"
	"log"
	"net"
	"time"
)

type chunk struct {
	due  time.Time
	data []byte
}

func main() {
	listen := flag.String("listen", "", "address to listen on")
	target := flag.String("target", "", "address to forward to")
	delay := flag.Duration("delay", 50*time.Millisecond, "one-way delay of every chunk")
	flag.Parse()
	if *listen == "" || *target == "" {
		log.Fatal("usage: latencyproxy -listen ADDR -target ADDR [-delay D]")
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	for {
		in, err := ln.Accept()
		if err != nil {
			log.Fatal(err)
		}
		out, err := net.Dial("tcp", *target)
		if err != nil {
			in.Close()
			continue
		}
		go pipe(in, out, *delay)
		go pipe(out, in, *delay)
	}
}

// pipe copies from → to, each chunk leaving delay after it arrived, in
// order; either side closing closes both.
func pipe(from, to net.Conn, delay time.Duration) {
	q := make(chan chunk, 4096)
	go func() {
		defer to.Close()
		for c := range q {
			time.Sleep(time.Until(c.due))
			if _, err := to.Write(c.data); err != nil {
				from.Close()
				for range q {
				}
				return
			}
		}
	}()
	buf := make([]byte, 64<<10)
	for {
		n, err := from.Read(buf)
		if n > 0 {
			q <- chunk{due: time.Now().Add(delay), data: append([]byte(nil), buf[:n]...)}
		}
		if err != nil {
			close(q)
			return
		}
	}
}

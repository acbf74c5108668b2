package httpd

import (
	"bytes"
	"net"
	"syscall"
)

// peekReady says how far the request waiting unread in c's socket has
// come (readyNone, readyBytes, readyHead), without reading it (MSG_PEEK,
// non-blocking). It uses Control, not Read, on the raw connection:
// Control does not wait for the read lock that a serving goroutine
// blocked in Read holds. It looks at the first peekBytes only: a head
// longer than that counts as partial.
func peekReady(c net.Conn) int32 {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return readyNone
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return readyNone
	}
	ready := readyNone
	var b [peekBytes]byte
	_ = rc.Control(func(fd uintptr) {
		n, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		switch {
		case err != nil || n <= 0:
		case bytes.Contains(b[:n], headEnd):
			ready = readyHead
		default:
			ready = readyBytes
		}
	})
	return ready
}

// peekBytes: a wallet's or a block explorer's request head fits.
const peekBytes = 2048

//go:build !linux

package httpd

import "net"

// peekReady: elsewhere the server's own reads (countedConn.noteRead) are
// all probation knows of a connection's request.
func peekReady(net.Conn) int32 { return readyNone }

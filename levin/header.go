// Package levin reads and writes the levin framing monerod v0.18 uses on its
// P2P port: a 33-byte bucket header followed by a body (an epee portable
// storage blob, see package portable).
//
// The rules come from contrib/epee/include/net/levin_base.h,
// levin_protocol_handler_async.h and src/cryptonote_protocol/levin_notify.cpp
// as summarised in docs/p2p-levin.md §2. Everything a hostile peer
// controls is checked before it is used: the signature as soon as its 8 bytes
// are in, the body size against the connection and per-command limits before
// any body memory is taken, and body memory grows only as bytes actually
// arrive.
package levin

import (
	"encoding/binary"
	"fmt"
)

// Signature is m_signature (LEVIN_SIGNATURE). On the wire, little-endian:
// 01 21 01 01 01 01 01 01.
const Signature uint64 = 0x0101010101012101

// HeaderSize is sizeof(bucket_head2): the header is packed, 33 bytes.
const HeaderSize = 33

// ProtocolVersion is LEVIN_PROTOCOL_VER_1, the only version monerod sends.
const ProtocolVersion uint32 = 1

// Connection-wide body size limits (levin_base.h, docs/p2p-levin.md §2.4). monerod allows
// MaxPacketSizeBeforeHandshake until the handshake is done (on an outbound
// connection: as soon as the handshake invoke is sent; inbound: after a
// handshake request was processed) and MaxPacketSize afterwards.
// (P2P_DEFAULT_PACKET_MAX_SIZE = 50,000,000 in cryptonote_config.h is unused.)
const (
	MaxPacketSizeBeforeHandshake uint64 = 262144      // LEVIN_INITIAL_MAX_PACKET_SIZE
	MaxPacketSize                uint64 = 100_000_000 // LEVIN_DEFAULT_MAX_PACKET_SIZE
)

// Flags is m_flags.
type Flags uint32

// The m_flags bits (levin_base.h). A header with neither FlagRequest nor
// FlagResponse is a fragment; with FlagBegin|FlagEnd as well it is noise.
const (
	FlagRequest  Flags = 0x01 // LEVIN_PACKET_REQUEST: invoke or notification
	FlagResponse Flags = 0x02 // LEVIN_PACKET_RESPONSE
	FlagBegin    Flags = 0x04 // LEVIN_PACKET_BEGIN: first fragment
	FlagEnd      Flags = 0x08 // LEVIN_PACKET_END: last fragment
)

// ReturnCode is m_return_code.
type ReturnCode int32

// Return codes. ReturnOK is what requests and notifications carry; a
// response from a handler that ran carries ReturnSuccess (monerod treats a
// response with a code <= 0 as a failed invoke). The negative ones are
// levin_base.h's LEVIN_ERROR_*; monerod answers an unparsable invoke with
// ReturnErrConnection, an unknown command with ReturnErrHandlerNotDefined and
// a handler exception with ReturnErrTimedOut, each with an empty body.
const (
	ReturnOK                   ReturnCode = 0  // LEVIN_OK
	ReturnSuccess              ReturnCode = 1  // what every P2P handler returns
	ReturnErrConnection        ReturnCode = -1 // LEVIN_ERROR_CONNECTION
	ReturnErrNotFound          ReturnCode = -2 // LEVIN_ERROR_CONNECTION_NOT_FOUND
	ReturnErrDestroyed         ReturnCode = -3 // LEVIN_ERROR_CONNECTION_DESTROYED
	ReturnErrTimedOut          ReturnCode = -4 // LEVIN_ERROR_CONNECTION_TIMEDOUT
	ReturnErrNoDuplexProtocol  ReturnCode = -5 // LEVIN_ERROR_CONNECTION_NO_DUPLEX_PROTOCOL
	ReturnErrHandlerNotDefined ReturnCode = -6 // LEVIN_ERROR_CONNECTION_HANDLER_NOT_DEFINED
	ReturnErrFormat            ReturnCode = -7 // LEVIN_ERROR_FORMAT
)

// Kind is how a receiver classifies a bucket (docs/p2p-levin.md §2.3).
type Kind uint8

// Message kinds. KindFragment is a header-level kind only: ReadMessage
// reassembles fragments and drops noise, so a Message never has it.
const (
	KindRequest      Kind = iota + 1 // invoke: the peer waits for a response
	KindResponse                     // answer to the oldest outstanding invoke
	KindNotification                 // no answer
	KindFragment                     // fragment or noise (neither request nor response flag)
)

func (k Kind) String() string {
	switch k {
	case KindRequest:
		return "request"
	case KindResponse:
		return "response"
	case KindNotification:
		return "notification"
	case KindFragment:
		return "fragment"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Header is a bucket header (bucket_head2) without its constant signature.
type Header struct {
	BodySize        uint64 // m_cb
	ExpectsResponse bool   // m_have_to_return_data
	Command         uint32 // m_command
	ReturnCode      ReturnCode
	Flags           Flags
	ProtocolVersion uint32 // m_protocol_version
}

// Kind classifies the header the way levin_protocol_handler_async.h's
// handle_recv does: no request/response flag means fragment; the response
// flag counts only with protocol version 1 (ParseHeader already requires it);
// otherwise m_have_to_return_data decides between request and notification,
// whatever the flags say.
func (h Header) Kind() Kind {
	switch {
	case h.Flags&(FlagRequest|FlagResponse) == 0:
		return KindFragment
	case h.ProtocolVersion == ProtocolVersion && h.Flags&FlagResponse != 0:
		return KindResponse
	case h.ExpectsResponse:
		return KindRequest
	}
	return KindNotification
}

// IsNoise reports a dummy bucket (fragment flags BEGIN and END together),
// which receivers discard.
func (h Header) IsNoise() bool {
	return h.Kind() == KindFragment && h.Flags&(FlagBegin|FlagEnd) == FlagBegin|FlagEnd
}

// Encode returns the 33 header bytes, signature included.
func (h Header) Encode() [HeaderSize]byte {
	var b [HeaderSize]byte
	binary.LittleEndian.PutUint64(b[0:], Signature)
	binary.LittleEndian.PutUint64(b[8:], h.BodySize)
	if h.ExpectsResponse {
		b[16] = 1
	}
	binary.LittleEndian.PutUint32(b[17:], h.Command)
	binary.LittleEndian.PutUint32(b[21:], uint32(h.ReturnCode))
	binary.LittleEndian.PutUint32(b[25:], uint32(h.Flags))
	binary.LittleEndian.PutUint32(b[29:], h.ProtocolVersion)
	return b
}

// ParseHeader decodes the first HeaderSize bytes of b. It checks the
// signature, that m_have_to_return_data is 0 or 1 and that the protocol
// version is 1; it does not check the body size (see Reader).
//
// monerod itself looks at the version only to recognise responses and reads
// the bool byte as a C++ bool; it always sends 1 and 0/1, so anything else
// comes from a broken or hostile peer and is refused here.
func ParseHeader(b []byte) (Header, error) {
	if len(b) < HeaderSize {
		return Header{}, ErrShortHeader
	}
	if binary.LittleEndian.Uint64(b) != Signature {
		return Header{}, ErrBadSignature
	}
	return parseHeaderFields(b)
}

// parseHeaderFields decodes everything after the signature; fragment
// reassembly uses it for the inner header, whose signature monerod does not
// check.
func parseHeaderFields(b []byte) (Header, error) {
	h := Header{
		BodySize:        binary.LittleEndian.Uint64(b[8:]),
		Command:         binary.LittleEndian.Uint32(b[17:]),
		ReturnCode:      ReturnCode(binary.LittleEndian.Uint32(b[21:])),
		Flags:           Flags(binary.LittleEndian.Uint32(b[25:])),
		ProtocolVersion: binary.LittleEndian.Uint32(b[29:]),
	}
	switch b[16] {
	case 0:
	case 1:
		h.ExpectsResponse = true
	default:
		return Header{}, fmt.Errorf("%w: have_to_return_data byte %#x", ErrBadHeader, b[16])
	}
	if h.ProtocolVersion != ProtocolVersion {
		return Header{}, &VersionError{Version: h.ProtocolVersion}
	}
	return h, nil
}

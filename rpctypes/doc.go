// Package rpctypes declares the requests and answers of monerod's daemon
// RPC once (core_rpc_server_commands_defs.h of monerod 0.18.5.3, RPC 3.16),
// for every server and client of it: the HTTP RPC (package rpc), the
// operator commands (package daemonctl) and, later, the ZMQ RPC.
//
// A request type comes with its decoder, which loads it the way epee loads
// monerod's request struct (a missing member keeps its default, a member of
// the wrong type is refused); an answer type comes with its writer, which
// prints monerod's members in monerod's order (epee sections are std::map,
// so sorted by name) with monerod's number formats, and with json tags so a
// client decodes the same type. The package knows nothing of the chain,
// the pool or the network: handlers fill the values, this package only
// reads and writes them.
package rpctypes

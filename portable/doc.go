// Package portable reads and writes epee "portable storage" in its binary
// form, the body of every levin message monerod v0.18 exchanges on its P2P
// port, and maps the P2P admin payloads (handshake, timed sync, ping,
// support flags) to Go structs.
//
// The format and monerod's reading rules come from contrib/epee/include/
// storages/portable_storage_from_bin.h, portable_storage_to_bin.h,
// portable_storage_val_converters.h, levin_abstract_invoke2.h and
// serialization/keyvalue_serialization*.h, as summarised in
// docs/p2p-levin.md §3–§5:
//
//   - A blob is a 9-byte header (01 11 01 01 01 01 02 01 01) and one root
//     section. A section is a size-marker count of entries; an entry is a
//     1-byte name length, the name, a type code and the value. Arrays are
//     the element type code OR 0x80, a count and bare elements.
//   - Size markers ("varints") keep their width in the low two bits of the
//     first byte (1, 2, 4 or 8 bytes); Encode writes the smallest width.
//   - All integers are little-endian; strings are binary-safe and carry
//     hashes, keys and blobs.
//
// Decode is written for hostile input: every count and length is checked
// against the bytes left before anything is allocated, and the number of
// objects, fields and strings and the nesting depth are bounded (Limits).
// It never panics.
//
// The value tree (Section, Entry, Value) keeps entries in wire order, so a
// canonical blob (what monerod writes: sorted names, minimal size markers)
// decodes and re-encodes to the same bytes.
package portable

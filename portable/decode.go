package portable

import (
	"encoding/binary"
	"math"
	"strconv"
)

// storageHeader is PORTABLE_STORAGE_SIGNATUREA (0x01011101),
// PORTABLE_STORAGE_SIGNATUREB (0x01020101) and PORTABLE_STORAGE_FORMAT_VER
// (1), little-endian.
var storageHeader = [9]byte{0x01, 0x11, 0x01, 0x01, 0x01, 0x01, 0x02, 0x01, 0x01}

// Limits bound what one Decode may build. A hostile blob can make every
// element cost far more memory than its bytes (an empty array is 4 bytes on
// the wire, a Value 112 bytes in memory), so the counts matter more than the
// input size.
type Limits struct {
	MaxObjects int // sections, the root and array elements included
	MaxFields  int // non-string scalar values and arrays (array elements included)
	MaxStrings int // string values, array elements included; names not counted
	MaxDepth   int // objects nested below the root
}

// monerod's limits for P2P messages (levin_abstract_invoke2.h,
// portable_storage::limits_t) and the nesting depth Decode allows.
//
// monerod counts objects, fields and strings per message. Here an array also
// counts as one field on top of its elements, so that every entry costs at
// least one unit and a blob of empty arrays cannot make millions of entries;
// no real message comes near the limit.
//
// monerod's own depth guard counts C++ call frames (limit 100, about three
// per object level, so roughly 32 levels). The deepest real P2P message,
// a handshake response, nests 3 levels (local_peerlist_new → adr → addr);
// 30 is below monerod's limit, so whatever we accept and re-send monerod can
// read too.
const (
	MaxObjects = 8192
	MaxFields  = 16384
	MaxStrings = 16384
	MaxDepth   = 30
)

// P2PLimits are the limits Decode applies.
func P2PLimits() Limits {
	return Limits{MaxObjects: MaxObjects, MaxFields: MaxFields, MaxStrings: MaxStrings, MaxDepth: MaxDepth}
}

// maxStringLen is the string length monerod's reader refuses
// (portable_storage_from_bin.h: "len >= 2000000000").
const maxStringLen = 2_000_000_000

// Decode parses a binary storage blob (a levin body) with P2PLimits.
//
// It accepts what monerod's throwable_buffer_reader accepts: any entry
// order, non-minimal varints, trailing bytes after the root section
// (fragment padding relies on that), and a bare SERIALIZE_TYPE_ARRAY code
// followed by the array's own flagged type code. It refuses a bad header,
// truncation, unknown type codes, arrays of arrays, bools other than 0/1,
// empty names, duplicate names in one section, array counts larger than the
// bytes left could hold (see minSize), and anything over the limits.
//
// Strings in the result alias data: do not modify data while the result is
// in use.
func Decode(data []byte) (Section, error) {
	return DecodeWithLimits(data, P2PLimits())
}

// DecodeWithLimits is Decode with other limits (e.g. for the .bin RPC
// bodies, which monerod parses without limits). Memory use is bounded by the
// limits and by the input size; with very large limits a hostile blob can
// still cost about 30 times its size.
func DecodeWithLimits(data []byte, lim Limits) (Section, error) {
	if len(data) < len(storageHeader) || [9]byte(data[:9]) != storageHeader {
		return Section{}, &DecodeError{Offset: 0, Err: ErrBadHeader}
	}
	d := decoder{data: data, off: len(storageHeader), lim: lim}
	return d.section(0)
}

type decoder struct {
	data                     []byte
	off                      int
	lim                      Limits
	objects, fields, strings int
}

func (d *decoder) fail(err error) error { return &DecodeError{Offset: d.off, Err: err} }

func (d *decoder) left() int { return len(d.data) - d.off }

// varint reads a size marker (docs/p2p-levin.md §3.2): the low two bits of the first byte
// give the width (1, 2, 4 or 8 bytes), the little-endian value of that
// width shifted right by two is the number. Non-minimal widths are
// accepted, as monerod does.
func (d *decoder) varint() (uint64, error) {
	if d.left() < 1 {
		return 0, d.fail(ErrTruncated)
	}
	width := 1 << (d.data[d.off] & 3)
	if d.left() < width {
		return 0, d.fail(ErrTruncated)
	}
	b := d.data[d.off:]
	var v uint64
	switch width {
	case 1:
		v = uint64(b[0])
	case 2:
		v = uint64(binary.LittleEndian.Uint16(b))
	case 4:
		v = uint64(binary.LittleEndian.Uint32(b))
	default:
		v = binary.LittleEndian.Uint64(b)
	}
	d.off += width
	return v >> 2, nil
}

// budget is how many more entries the limits allow at most.
func (d *decoder) budget() int {
	return max(0, d.lim.MaxObjects-d.objects) + max(0, d.lim.MaxFields-d.fields) + max(0, d.lim.MaxStrings-d.strings)
}

// minEntrySize is the smallest entry: name length, a 1-byte name, type code
// and a 1-byte value (uint8, bool, empty string, empty object, empty array).
const minEntrySize = 4

func (d *decoder) section(depth int) (Section, error) {
	if d.objects >= d.lim.MaxObjects {
		return Section{}, d.fail(ErrLimit)
	}
	d.objects++
	count, err := d.varint()
	if err != nil {
		return Section{}, err
	}
	if count > uint64(d.left()/minEntrySize) {
		return Section{}, d.fail(ErrTruncated)
	}
	n := int(count)
	s := Section{Entries: make([]Entry, 0, min(n, d.budget()))}
	var seen map[string]struct{} // built once the names stop being sorted
	for range n {
		name, err := d.name()
		if err != nil {
			return s, err
		}
		if k := len(s.Entries); k > 0 && (seen != nil || name <= s.Entries[k-1].Name) {
			if seen == nil {
				seen = make(map[string]struct{}, n)
				for _, e := range s.Entries {
					seen[e.Name] = struct{}{}
				}
			}
			if _, dup := seen[name]; dup {
				return s, withPath(d.fail(ErrDuplicateName), name)
			}
			seen[name] = struct{}{}
		}
		v, err := d.entryValue(depth)
		if err != nil {
			return s, withPath(err, name)
		}
		s.Entries = append(s.Entries, Entry{Name: name, Value: v})
	}
	return s, nil
}

// name reads an entry name: one length byte (0 is refused, as monerod's
// read_sec_name does) and the bytes.
func (d *decoder) name() (string, error) {
	if d.left() < 1 {
		return "", d.fail(ErrTruncated)
	}
	n := int(d.data[d.off])
	if n == 0 {
		return "", d.fail(ErrEmptyName)
	}
	if d.left() < 1+n {
		return "", d.fail(ErrTruncated)
	}
	b := d.data[d.off+1 : d.off+1+n]
	d.off += 1 + n
	if s, ok := knownNames[string(b)]; ok {
		return s, nil // no allocation for the names monerod sends
	}
	return string(b), nil
}

// entryValue reads a type code and the value after it.
func (d *decoder) entryValue(depth int) (Value, error) {
	if d.left() < 1 {
		return Value{}, d.fail(ErrTruncated)
	}
	t := Type(d.data[d.off])
	d.off++
	if t == 13 {
		// load_storage_entry reads SERIALIZE_TYPE_ARRAY as read_se<array_entry>:
		// another type code follows, which must carry the array flag.
		if d.left() < 1 {
			return Value{}, d.fail(ErrTruncated)
		}
		t = Type(d.data[d.off])
		if !t.IsArray() {
			return Value{}, d.fail(ErrUnknownType)
		}
		d.off++
	}
	if t.IsArray() {
		return d.array(t.Elem(), depth)
	}
	if !t.valid() {
		d.off--
		return Value{}, d.fail(ErrUnknownType)
	}
	if err := d.count(t, 1); err != nil {
		return Value{}, err
	}
	return d.scalar(t, depth)
}

// count charges n values of type t against the limits.
func (d *decoder) count(t Type, n uint64) error {
	var used *int
	var limit int
	switch t {
	case TypeObject:
		return nil // section() counts itself
	case TypeString:
		used, limit = &d.strings, d.lim.MaxStrings
	default:
		used, limit = &d.fields, d.lim.MaxFields
	}
	if n > uint64(max(0, limit-*used)) {
		return d.fail(ErrLimit)
	}
	*used += int(n)
	return nil
}

// minSize is the smallest encoding of an array element, for the count
// sanity check monerod makes with ps_min_bytes ("Size sanity check
// failed"). monerod counts 2 bytes per string although an empty string
// takes 1, so it refuses a blob that ends in an array of n empty strings
// with fewer than 2n bytes left, which its own writer can produce. Here a
// string counts its true minimum, 1: whatever Decode accepts, Encode writes
// and Decode accepts again. The memory bound is the same.
func minSize(t Type) int {
	switch t {
	case TypeInt64, TypeUint64, TypeDouble:
		return 8
	case TypeInt32, TypeUint32:
		return 4
	case TypeInt16, TypeUint16:
		return 2
	}
	return 1
}

func (d *decoder) array(elem Type, depth int) (Value, error) {
	if elem == 13 {
		// read_ae<array_entry>: "Reading array entry is not supported".
		return Value{}, d.fail(ErrNestedArray)
	}
	if !elem.valid() {
		return Value{}, d.fail(ErrUnknownType)
	}
	if err := d.count(TypeUint8, 1); err != nil { // the array itself is a field
		return Value{}, err
	}
	n, err := d.varint()
	if err != nil {
		return Value{}, err
	}
	if n > uint64(d.left()/minSize(elem)) {
		return Value{}, d.fail(ErrTooLarge) // "Size sanity check failed"
	}
	if elem == TypeObject && n > uint64(max(0, d.lim.MaxObjects-d.objects)) {
		return Value{}, d.fail(ErrLimit)
	}
	if err := d.count(elem, n); err != nil {
		return Value{}, err
	}
	v := Value{Type: ArrayFlag | elem}
	if n > 0 {
		v.Array = make([]Value, n)
	}
	for i := range v.Array {
		if v.Array[i], err = d.scalar(elem, depth); err != nil {
			return Value{}, withPath(err, "["+strconv.Itoa(i)+"]")
		}
	}
	return v, nil
}

// scalar reads one bare value of type t (already counted).
func (d *decoder) scalar(t Type, depth int) (Value, error) {
	v := Value{Type: t}
	var width int
	switch t {
	case TypeInt8, TypeUint8, TypeBool:
		width = 1
	case TypeInt16, TypeUint16:
		width = 2
	case TypeInt32, TypeUint32:
		width = 4
	case TypeInt64, TypeUint64, TypeDouble:
		width = 8
	case TypeString:
		n, err := d.varint()
		if err != nil {
			return Value{}, err
		}
		if n >= maxStringLen || n > uint64(d.left()) {
			return Value{}, d.fail(ErrTruncated)
		}
		end := d.off + int(n)
		v.Bytes = d.data[d.off:end:end]
		d.off = end
		return v, nil
	case TypeObject:
		if depth >= d.lim.MaxDepth {
			return Value{}, d.fail(ErrTooDeep)
		}
		s, err := d.section(depth + 1)
		v.Object = s
		return v, err
	}
	if d.left() < width {
		return Value{}, d.fail(ErrTruncated)
	}
	b := d.data[d.off : d.off+width]
	switch t {
	case TypeInt8:
		v.Int = int64(int8(b[0]))
	case TypeInt16:
		v.Int = int64(int16(binary.LittleEndian.Uint16(b)))
	case TypeInt32:
		v.Int = int64(int32(binary.LittleEndian.Uint32(b)))
	case TypeInt64:
		v.Int = int64(binary.LittleEndian.Uint64(b))
	case TypeUint8:
		v.Uint = uint64(b[0])
	case TypeUint16:
		v.Uint = uint64(binary.LittleEndian.Uint16(b))
	case TypeUint32:
		v.Uint = uint64(binary.LittleEndian.Uint32(b))
	case TypeUint64:
		v.Uint = binary.LittleEndian.Uint64(b)
	case TypeDouble:
		v.Double = math.Float64frombits(binary.LittleEndian.Uint64(b))
	case TypeBool:
		if b[0] > 1 {
			return Value{}, d.fail(ErrBadBool)
		}
		v.Bool = b[0] == 1
	}
	d.off += width
	return v, nil
}

// knownNames interns the entry names of monerod's P2P and CryptoNote
// protocol messages, so decoding them does not allocate a string per entry.
var knownNames = func() map[string]string {
	m := map[string]string{}
	for _, n := range []string{
		"node_data", "payload_data", "local_peerlist_new", "network_id", "my_port", "peer_id",
		"rpc_port", "rpc_credits_per_hash", "support_flags", "current_height",
		"cumulative_difficulty", "cumulative_difficulty_top64", "top_id", "top_version",
		"pruning_seed", "adr", "id", "last_seen", "type", "addr", "m_ip", "m_port", "host", "port",
		"status", "txs", "_", "dandelionpp_fluff", "blocks", "prune", "missed_ids",
		"current_blockchain_height", "block_ids", "start_height", "total_height", "m_block_ids",
		"m_block_weights", "first_block", "b", "block", "block_weight", "pruned", "blob",
		"prunable_hash", "block_hash", "missing_tx_indices", "hashes",
	} {
		m[n] = n
	}
	return m
}()

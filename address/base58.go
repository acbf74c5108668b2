package address

import (
	"encoding/binary"
	"fmt"
	"math/bits"
)

// Monero's base58 (common/base58.cpp) is not Bitcoin's: the data is cut into
// 8-byte blocks, each encoded on its own into exactly 11 characters (a
// shorter last block into the number of characters that can hold it), so
// that an address has a fixed length and no big-number arithmetic is needed.
const alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

const (
	fullBlockSize        = 8
	fullEncodedBlockSize = 11
)

// encodedBlockSizes[n] is the number of characters a block of n bytes takes.
var encodedBlockSizes = [fullBlockSize + 1]int{0, 2, 3, 5, 6, 7, 9, 10, 11}

// decodedBlockSizes is the inverse of encodedBlockSizes: -1 for a character
// count no block size produces (1, 4 and 8).
var decodedBlockSizes = func() (d [fullEncodedBlockSize + 1]int) {
	for i := range d {
		d[i] = -1
	}
	for n, e := range encodedBlockSizes {
		d[e] = n
	}
	return d
}()

var alphabetIndex = func() (idx [256]int8) {
	for i := range idx {
		idx[i] = -1
	}
	for i := 0; i < len(alphabet); i++ {
		idx[alphabet[i]] = int8(i)
	}
	return idx
}()

// Base58Encode encodes data in Monero's block-wise base58.
func Base58Encode(data []byte) string {
	full, last := len(data)/fullBlockSize, len(data)%fullBlockSize
	out := make([]byte, 0, full*fullEncodedBlockSize+encodedBlockSizes[last])
	for len(data) > 0 {
		n := min(len(data), fullBlockSize)
		out = encodeBlock(out, data[:n])
		data = data[n:]
	}
	return string(out)
}

func encodeBlock(out, block []byte) []byte {
	var buf [8]byte
	copy(buf[8-len(block):], block)
	num := binary.BigEndian.Uint64(buf[:])
	size := encodedBlockSizes[len(block)]
	start := len(out)
	for range size {
		out = append(out, alphabet[0])
	}
	for i := size - 1; num > 0; i-- {
		out[start+i] = alphabet[num%58]
		num /= 58
	}
	return out
}

// Base58Error is a malformed base58 string: what is wrong and where.
type Base58Error struct {
	Offset int // character offset in the string
	Reason string
}

func (e *Base58Error) Error() string {
	return fmt.Sprintf("invalid base58 at character %d: %s", e.Offset, e.Reason)
}

// Base58Decode decodes Monero's block-wise base58. It refuses characters
// outside the alphabet, a length no sequence of blocks has, and a block
// whose value does not fit its byte count, as monerod does.
func Base58Decode(s string) ([]byte, error) {
	full, last := len(s)/fullEncodedBlockSize, len(s)%fullEncodedBlockSize
	lastSize := decodedBlockSizes[last]
	if lastSize < 0 {
		return nil, &Base58Error{Offset: len(s), Reason: fmt.Sprintf("length %d is not a valid encoded length (a final block of %d characters is impossible)", len(s), last)}
	}
	out := make([]byte, 0, full*fullBlockSize+lastSize)
	for off := 0; off < len(s); off += fullEncodedBlockSize {
		end := min(off+fullEncodedBlockSize, len(s))
		var err error
		if out, err = decodeBlock(out, s[off:end], off); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func decodeBlock(out []byte, block string, offset int) ([]byte, error) {
	size := decodedBlockSizes[len(block)]
	var num uint64
	for i := 0; i < len(block); i++ {
		digit := alphabetIndex[block[i]]
		if digit < 0 {
			return nil, &Base58Error{Offset: offset + i, Reason: fmt.Sprintf("%q is not a base58 character", block[i])}
		}
		hi, lo := bits.Mul64(num, 58)
		lo, carry := bits.Add64(lo, uint64(digit), 0)
		if hi != 0 || carry != 0 {
			return nil, &Base58Error{Offset: offset, Reason: "block value overflows 64 bits"}
		}
		num = lo
	}
	if size < fullBlockSize && num>>(8*size) != 0 {
		return nil, &Base58Error{Offset: offset, Reason: fmt.Sprintf("block value does not fit in %d bytes", size)}
	}
	var buf [8]byte
	binary.BigEndian.PutUint64(buf[:], num)
	return append(out, buf[8-size:]...), nil
}

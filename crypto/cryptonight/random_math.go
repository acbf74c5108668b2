package cryptonight

import (
	"encoding/binary"
	"math/bits"

	"github.com/dchest/blake256"
)

// CryptoNight-R's random program (monerod's variant4_random_math.h): a
// height-seeded sequence of 32-bit operations on nine registers, generated
// by simulating a small out-of-order CPU so that every program has the same
// latency. Every detail of the simulation changes the program, so it follows
// monerod's generator step by step.

// Opcodes, numbered as monerod numbers them: the numbers enter the
// generator's duplicate-instruction trackers.
const (
	opMUL = iota
	opADD
	opSUB
	opROR
	opROL
	opXOR
)

const (
	v4TotalLatency    = 15 * 3
	v4InstructionsMin = 60
	v4InstructionsMax = 70
	v4ALUs            = 3
)

var (
	v4OpLatency     = [6]int{3, 2, 1, 2, 2, 1}
	v4AsicOpLatency = [6]int{3, 1, 1, 1, 1, 1}
	v4OpALUs        = [6]int{1, v4ALUs, v4ALUs, v4ALUs, v4ALUs, v4ALUs}
)

type v4Instruction struct {
	op, dst, src uint8
	c            uint32
}

// v4Program holds a generated program; n instructions are used (60..70).
type v4Program struct {
	code [v4InstructionsMax]v4Instruction
	n    int
}

// v4Stream is the generator's byte source: a 32-byte buffer rehashed with
// BLAKE-256 whenever a read would run past its end. It is never reset
// between the generator's retries.
type v4Stream struct {
	data [32]byte
	pos  int
}

func (s *v4Stream) need(n int) {
	if s.pos+n > len(s.data) {
		s.data = blake256.Sum256(s.data[:])
		s.pos = 0
	}
}

func (s *v4Stream) byte() byte {
	s.need(1)
	b := s.data[s.pos]
	s.pos++
	return b
}

func (s *v4Stream) uint32() uint32 {
	s.need(4)
	v := binary.LittleEndian.Uint32(s.data[s.pos:])
	s.pos += 4
	return v
}

func isRotation(op uint8) bool { return op == opROR || op == opROL }

// generateV4 is v4_random_math_init.
func generateV4(p *v4Program, height uint64) {
	var s v4Stream
	binary.LittleEndian.PutUint64(s.data[:], height)
	s.data[20] = 0xda // monerod's "change seed" byte, -38 as int8
	s.pos = len(s.data)

	for {
		var (
			latency, asic [9]int
			busy          [v4TotalLatency + 1][v4ALUs]bool
			rotated       [4]bool
			rotateCount   int
			retries       int
			iterations    int
			r8Used        bool
		)
		// Per register: the last instruction writing it and its source's
		// tracker byte, to refuse instructions that fold into one.
		// r4..r8 never change, so they share one value.
		inst := [9]uint32{0, 1, 2, 3, 0xffffff, 0xffffff, 0xffffff, 0xffffff, 0xffffff}
		p.n = 0
		for (latency[0] < v4TotalLatency || latency[1] < v4TotalLatency || latency[2] < v4TotalLatency ||
			latency[3] < v4TotalLatency) && retries < 64 {
			iterations++
			if iterations > 256 {
				break
			}
			c := s.byte()
			var op uint8
			switch code := c & 7; {
			case code == 5:
				if int8(s.byte()) >= 0 {
					op = opROR
				} else {
					op = opROL
				}
			case code >= 6:
				op = opXOR
			case code <= 2:
				op = opMUL
			default:
				op = code - 2
			}
			dst := (c >> 3) & 3
			src := (c >> 5) & 7
			a, b := int(dst), int(src)
			if (op == opADD || op == opSUB || op == opXOR) && a == b {
				b, src = 8, 8
			}
			if isRotation(op) && rotated[a] {
				continue
			}
			if op != opMUL && inst[a]&0xffff00 == uint32(op)<<8+(inst[b]&0xff)<<16 {
				continue
			}
			t := max(latency[a], latency[b])
			alu := -1
			for ; t < v4TotalLatency; t++ {
				for i := v4OpALUs[op] - 1; i >= 0; i-- {
					if busy[t][i] {
						continue
					}
					if op == opADD && busy[t+1][i] {
						continue
					}
					if isRotation(op) && t < rotateCount*v4OpLatency[op] {
						continue
					}
					alu = i
					break
				}
				if alu >= 0 {
					break
				}
			}
			if t > latency[a]+7 {
				continue
			}
			end := t + v4OpLatency[op]
			if end > v4TotalLatency {
				retries++
				continue
			}
			if isRotation(op) {
				rotateCount++
			}
			busy[t][alu] = true
			latency[a] = end
			asic[a] = max(asic[a], asic[b]) + v4AsicOpLatency[op]
			rotated[a] = isRotation(op)
			inst[a] = uint32(p.n) + uint32(op)<<8 + (inst[b]&0xff)<<16
			in := v4Instruction{op: op, dst: dst, src: src}
			if src == 8 {
				r8Used = true
			}
			if op == opADD {
				busy[t+1][alu] = true
				in.c = s.uint32()
			}
			p.code[p.n] = in
			p.n++
			if p.n >= v4InstructionsMin {
				break
			}
		}

		// Pad with ROR, MUL, MUL, ... until one register reaches the
		// latency an ASIC with unlimited ALUs would see.
		prev := p.n
		for p.n < v4InstructionsMax && asic[0] < v4TotalLatency && asic[1] < v4TotalLatency &&
			asic[2] < v4TotalLatency && asic[3] < v4TotalLatency {
			lo, hi := 0, 0
			for i := 1; i < 4; i++ {
				if asic[i] < asic[lo] {
					lo = i
				}
				if asic[i] > asic[hi] {
					hi = i
				}
			}
			op := [3]uint8{opROR, opMUL, opMUL}[(p.n-prev)%3]
			latency[lo] = latency[hi] + v4OpLatency[op]
			asic[lo] = asic[hi] + v4AsicOpLatency[op]
			p.code[p.n] = v4Instruction{op: op, dst: uint8(lo), src: uint8(hi)}
			p.n++
		}
		if r8Used && p.n >= v4InstructionsMin && p.n <= v4InstructionsMax {
			return
		}
	}
}

// run is v4_random_math: the program applied to the registers.
func (p *v4Program) run(r *[9]uint32) {
	for _, in := range p.code[:p.n] {
		src := r[in.src]
		dst := &r[in.dst&3]
		switch in.op {
		case opMUL:
			*dst *= src
		case opADD:
			*dst += src + in.c
		case opSUB:
			*dst -= src
		case opROR:
			*dst = bits.RotateLeft32(*dst, -int(src&31))
		case opROL:
			*dst = bits.RotateLeft32(*dst, int(src&31))
		case opXOR:
			*dst ^= src
		}
	}
}

package cryptonight

import "golang.org/x/sys/cpu"

// hasAESNI selects the AESENC version of the scratchpad fill and fold,
// where the eight independent blocks keep the AES unit busy; BenchmarkSum
// showed them at about 45% of a hash with the table-driven round.
var hasAESNI = cpu.X86.HasAES

// pseudoEncrypt8AESNI is pseudoEncrypt on the eight blocks of text.
//
//go:noescape
func pseudoEncrypt8AESNI(text *[16]uint64, rk *roundKeys)

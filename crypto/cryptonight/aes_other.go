//go:build !amd64

package cryptonight

const hasAESNI = false

func pseudoEncrypt8AESNI(*[16]uint64, *roundKeys) { panic("no AES-NI") }

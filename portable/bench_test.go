package portable

import "testing"

// A handshake response with a full peer list (P2P_DEFAULT_PEERS_IN_HANDSHAKE
// = 250 entries, the four address types in turn).

func BenchmarkUnmarshalHandshake250(b *testing.B) {
	blob, err := Marshal(fullHandshakeResponse(250))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(blob)))
	b.ReportAllocs()
	for b.Loop() {
		var m HandshakeResponse
		if err := Unmarshal(blob, &m); err != nil || len(m.LocalPeerlist) != 250 {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeHandshake250(b *testing.B) {
	blob, err := Marshal(fullHandshakeResponse(250))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(blob)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(blob); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMarshalHandshake250(b *testing.B) {
	m := fullHandshakeResponse(250)
	blob, _ := Marshal(m)
	b.SetBytes(int64(len(blob)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Marshal(m); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeHandshake250(b *testing.B) {
	s := fullHandshakeResponse(250).ToSection()
	blob, _ := Encode(s)
	b.SetBytes(int64(len(blob)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Encode(s); err != nil {
			b.Fatal(err)
		}
	}
}

package tree

import (
	"sync"

	"github.com/gonero/gonero/crypto"
	"github.com/gonero/gonero/fcmp/helioselene"
)

// The generator counts of d06d9518 (networks/monero/ringct/fcmp++/src/lib.rs).
const (
	HeliosGeneratorCount = 2048
	SeleneGeneratorCount = 4096
)

// HeliosGenerators are the Helios generators: G, H and the vectors G_bold, H_bold.
type HeliosGenerators struct {
	G, H         helioselene.HeliosPoint
	GBold, HBold []helioselene.HeliosPoint
}

// SeleneGenerators are the Selene generators: G, H and the vectors G_bold, H_bold.
type SeleneGenerators struct {
	G, H         helioselene.SelenePoint
	GBold, HBold []helioselene.SelenePoint
}

// varint appends monero_io's write_varint of v (LEB128: 7 bits a byte, least significant first).
func varint(b []byte, v uint32) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// heliosHashToPoint is d06d9518's hash_to_point_on_curve::<Helios>: keccak256 of the seed, then keccak256
// again until the 32 bytes decode as a point.
func heliosHashToPoint(seed []byte) helioselene.HeliosPoint {
	buf := crypto.Keccak256(seed)
	var p helioselene.HeliosPoint
	for {
		if _, err := p.SetBytes(buf[:]); err == nil {
			return p
		}
		buf = crypto.Keccak256(buf[:])
	}
}

// seleneHashToPoint is hash_to_point_on_curve::<Selene>.
func seleneHashToPoint(seed []byte) helioselene.SelenePoint {
	buf := crypto.Keccak256(seed)
	var p helioselene.SelenePoint
	for {
		if _, err := p.SetBytes(buf[:]); err == nil {
			return p
		}
		buf = crypto.Keccak256(buf[:])
	}
}

var (
	heliosOnce, seleneOnce         sync.Once
	heliosGens                     *HeliosGenerators
	seleneGens                     *SeleneGenerators
	heliosInitOnce, seleneInitOnce sync.Once
	heliosHashInit                 helioselene.HeliosPoint
	seleneHashInit                 helioselene.SelenePoint
)

// HeliosHashInit returns HELIOS_HASH_INIT, the point a Helios layer hash starts from.
func HeliosHashInit() helioselene.HeliosPoint {
	heliosInitOnce.Do(func() { heliosHashInit = heliosHashToPoint([]byte("Monero Helios Hash Initializer")) })
	return heliosHashInit
}

// SeleneHashInit returns SELENE_HASH_INIT, the point a Selene layer hash starts from.
func SeleneHashInit() helioselene.SelenePoint {
	seleneInitOnce.Do(func() { seleneHashInit = seleneHashToPoint([]byte("Monero Selene Hash Initializer")) })
	return seleneHashInit
}

// Helios returns HELIOS_GENERATORS (derived on first call; shared, do not modify).
func Helios() *HeliosGenerators {
	heliosOnce.Do(func() {
		g := &HeliosGenerators{
			G:     heliosHashToPoint([]byte("Monero Helios G")),
			H:     heliosHashToPoint([]byte("Monero Helios H")),
			GBold: make([]helioselene.HeliosPoint, HeliosGeneratorCount),
			HBold: make([]helioselene.HeliosPoint, HeliosGeneratorCount),
		}
		parallel(HeliosGeneratorCount, func(i int) {
			g.GBold[i] = heliosHashToPoint(varint([]byte("Monero Helios G "), uint32(i)))
			g.HBold[i] = heliosHashToPoint(varint([]byte("Monero Helios H "), uint32(i)))
		})
		heliosGens = g
	})
	return heliosGens
}

// Selene returns SELENE_GENERATORS (derived on first call; shared, do not modify).
func Selene() *SeleneGenerators {
	seleneOnce.Do(func() {
		g := &SeleneGenerators{
			G:     seleneHashToPoint([]byte("Monero Selene G")),
			H:     seleneHashToPoint([]byte("Monero Selene H")),
			GBold: make([]helioselene.SelenePoint, SeleneGeneratorCount),
			HBold: make([]helioselene.SelenePoint, SeleneGeneratorCount),
		}
		parallel(SeleneGeneratorCount, func(i int) {
			g.GBold[i] = seleneHashToPoint(varint([]byte("Monero Selene G "), uint32(i)))
			g.HBold[i] = seleneHashToPoint(varint([]byte("Monero Selene H "), uint32(i)))
		})
		seleneGens = g
	})
	return seleneGens
}

// parallel runs f(0..n-1) on a few goroutines (the derivation is a few thousand square roots).
func parallel(n int, f func(int)) {
	const workers = 4
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += workers {
				f(i)
			}
		}()
	}
	wg.Wait()
}

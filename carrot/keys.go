package carrot

import (
	"errors"

	"filippo.io/edwards25519"
)

// The key hierarchy (carrot-rs src/account.rs). Each function is one step,
// named after the secret it derives, so that every step is checked against
// its vector; NewAccount chains them.

// ProveSpendKey is k_ps = H_n[s_m]().
func ProveSpendKey(master [32]byte) Scalar {
	return scalarOf(hashScalar(master[:], dsProveSpendKey))
}

// PartialSpendPubkey is K_ps = k_ps T.
func PartialSpendPubkey(kps Scalar) Point {
	return pointOf(new(edwards25519.Point).ScalarMult(kps.scalar(), generatorT))
}

// ViewBalanceSecret is s_vb = H_32[s_m]().
func ViewBalanceSecret(master [32]byte) [32]byte {
	return hash32(master[:], dsViewBalanceSecret)
}

// GenerateImagePreimage is s_gp = H_32[s_vb]().
func GenerateImagePreimage(svb [32]byte) [32]byte {
	return hash32(svb[:], dsGenerateImagePreimage)
}

// GenerateImageKey is k_gi = H_n[s_gp](K_ps).
func GenerateImageKey(sgp [32]byte, kps Point) Scalar {
	return scalarOf(hashScalar(sgp[:], dsGenerateImageKey, kps[:]))
}

// ViewIncomingKey is k_v = H_n[s_vb]().
func ViewIncomingKey(svb [32]byte) Scalar {
	return scalarOf(hashScalar(svb[:], dsIncomingViewKey))
}

// GenerateAddressSecret is s_ga = H_32[s_vb]().
func GenerateAddressSecret(svb [32]byte) [32]byte {
	return hash32(svb[:], dsGenerateAddressSecret)
}

// AccountSpendPubkey is K_s = k_gi G + k_ps T.
func AccountSpendPubkey(kgi, kps Scalar) Point {
	return pointOf(mulGT(kgi.scalar(), kps.scalar()))
}

// AccountViewPubkey is K_v = k_v K_s, the view pubkey subaddresses derive
// from (the main address's is k_v G).
func AccountViewPubkey(kv Scalar, ks Point) (Point, error) {
	p, err := ks.point()
	if err != nil {
		return Point{}, err
	}
	return pointOf(new(edwards25519.Point).ScalarMult(kv.scalar(), p)), nil
}

// MainViewPubkey is K^0_v = k_v G, the main address's view pubkey (the same
// for Carrot and legacy accounts).
func MainViewPubkey(kv Scalar) Point {
	return pointOf(new(edwards25519.Point).ScalarBaseMult(kv.scalar()))
}

// AddressIndexPreimage1 is s^j_ap1 = H_32[s_ga](j_major, j_minor).
func AddressIndexPreimage1(sga [32]byte, major, minor uint32) [32]byte {
	return hash32(sga[:], dsAddressIndexPreimage1, u32le(major), u32le(minor))
}

// AddressIndexPreimage2 is s^j_ap2 = H_32[s^j_ap1](j_major, j_minor, K_s, K_v).
func AddressIndexPreimage2(sap1 [32]byte, major, minor uint32, ks, kv Point) [32]byte {
	return hash32(sap1[:], dsAddressIndexPreimage2, u32le(major), u32le(minor), ks[:], kv[:])
}

// SubaddressScalar is k^j_subscal = H_n[s^j_ap2](K_s).
func SubaddressScalar(sap2 [32]byte, ks Point) Scalar {
	return scalarOf(hashScalar(sap2[:], dsSubaddressScalar, ks[:]))
}

// AddressIndex is a subaddress index (major, minor); (0, 0) is the main
// address.
type AddressIndex struct{ Major, Minor uint32 }

// Address is a destination: its spend and view pubkeys, whether it is a
// subaddress, and the payment ID of an integrated address (zero otherwise).
type Address struct {
	SpendPub     Point // K^j_s
	ViewPub      Point // K^j_v
	IsSubaddress bool
	PaymentID    [8]byte
}

// Account holds a Carrot account's secrets and public keys.
type Account struct {
	ProveSpend            Scalar   // k_ps
	ViewBalance           [32]byte // s_vb
	GenerateImagePreimage [32]byte // s_gp
	GenerateImage         Scalar   // k_gi
	ViewIncoming          Scalar   // k_v
	GenerateAddress       [32]byte // s_ga
	PartialSpendPub       Point    // K_ps = k_ps T
	SpendPub              Point    // K_s = k_gi G + k_ps T
	ViewPub               Point    // K_v = k_v K_s (subaddresses' base)
	MainViewPub           Point    // K^0_v = k_v G
}

// NewAccount derives the whole hierarchy from the master secret s_m.
func NewAccount(master [32]byte) *Account {
	a := &Account{}
	a.ProveSpend = ProveSpendKey(master)
	a.PartialSpendPub = PartialSpendPubkey(a.ProveSpend)
	a.ViewBalance = ViewBalanceSecret(master)
	a.GenerateImagePreimage = GenerateImagePreimage(a.ViewBalance)
	a.GenerateImage = GenerateImageKey(a.GenerateImagePreimage, a.PartialSpendPub)
	a.ViewIncoming = ViewIncomingKey(a.ViewBalance)
	a.GenerateAddress = GenerateAddressSecret(a.ViewBalance)
	a.SpendPub = AccountSpendPubkey(a.GenerateImage, a.ProveSpend)
	a.ViewPub, _ = AccountViewPubkey(a.ViewIncoming, a.SpendPub) // K_s is ours: it decodes
	a.MainViewPub = MainViewPubkey(a.ViewIncoming)
	return a
}

// MainAddress is (K_s, k_v G).
func (a *Account) MainAddress() Address {
	return Address{SpendPub: a.SpendPub, ViewPub: a.MainViewPub}
}

// IntegratedAddress is the main address with a payment ID.
func (a *Account) IntegratedAddress(pid [8]byte) Address {
	addr := a.MainAddress()
	addr.PaymentID = pid
	return addr
}

// ErrMainIndex: (0, 0) names the main address, which is not a subaddress.
var ErrMainIndex = errors.New("carrot: subaddress index (0, 0) is the main address")

// Subaddress derives the subaddress (major, minor):
// K^j_s = k^j_subscal K_s, K^j_v = k^j_subscal K_v.
func (a *Account) Subaddress(major, minor uint32) (Address, error) {
	return MakeSubaddress(a.SpendPub, a.ViewPub, a.GenerateAddress, major, minor)
}

// MakeSubaddress derives subaddress (major, minor) from the account's
// public keys and generate-address secret, what a view-only wallet holds.
func MakeSubaddress(ks, kv Point, sga [32]byte, major, minor uint32) (Address, error) {
	if major == 0 && minor == 0 {
		return Address{}, ErrMainIndex
	}
	sap1 := AddressIndexPreimage1(sga, major, minor)
	sap2 := AddressIndexPreimage2(sap1, major, minor, ks, kv)
	k := SubaddressScalar(sap2, ks).scalar()
	ksp, err := ks.point()
	if err != nil {
		return Address{}, err
	}
	kvp, err := kv.point()
	if err != nil {
		return Address{}, err
	}
	return Address{
		SpendPub:     pointOf(new(edwards25519.Point).ScalarMult(k, ksp)),
		ViewPub:      pointOf(new(edwards25519.Point).ScalarMult(k, kvp)),
		IsSubaddress: true,
	}, nil
}

// SubaddressTable maps spend pubkeys to address indices: what a scanner
// looks a recovered K^j_s up in. It holds the main address and every
// subaddress with major < majors and minor < minors.
type SubaddressTable map[Point]AddressIndex

// SubaddressTable builds the table of the first majors × minors indices.
func (a *Account) SubaddressTable(majors, minors uint32) SubaddressTable {
	t := SubaddressTable{a.SpendPub: {}}
	for i := uint32(0); i < majors; i++ {
		for j := uint32(0); j < minors; j++ {
			if i == 0 && j == 0 {
				continue
			}
			s, err := a.Subaddress(i, j)
			if err != nil {
				continue // cannot happen for an account made by NewAccount
			}
			t[s.SpendPub] = AddressIndex{i, j}
		}
	}
	return t
}

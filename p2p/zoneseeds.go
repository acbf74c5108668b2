package p2p

import (
	mrand "math/rand/v2"

	"github.com/gonero/gonero/anonaddr"
)

// zoneSeedNodes are monerod 0.18.5.3's seeds of the anonymity zones, on
// mainnet only (net_node.inl get_seed_nodes); other networks have none.
var zoneSeedNodes = map[anonaddr.Zone][]string{
	anonaddr.ZoneTor: {
		"zbjkbsxc5munw3qusl7j2hpcmikhqocdf4pqhnhtpzw5nt5jrmofptid.onion:18083",
		"plowsof3t5hogddwabaeiyrno25efmzfxyro2vligremt7sxpsclfaid.onion:18083",
		"plowsoffjexmxalw73tkjmf422gq6575fc7vicuu4javzn2ynnte6tyd.onion:18083",
		"plowsofe6cleftfmk2raiw5h2x66atrik3nja4bfd3zrfa2hdlgworad.onion:18083",
		"aclc4e2jhhtr44guufbnwk5bzwhaecinax4yip4wr4tjn27sjsfg6zqd.onion:18083",
		"lykcas4tus7mkm4bhsgqe4drtd4awi7gja24goscc47xfgzj54yofyqd.onion:18083",
	},
	anonaddr.ZoneI2P: {
		"uqj3aphckqtjsitz7kxx5flqpwjlq5ppr3chazfued7xucv3nheq.b32.i2p",
		"vdmnehdjkpkg57nthgnjfuaqgku673r5bpbqg56ix6fyqoywgqrq.b32.i2p",
		"ugnlcdciyhghh2zert7c3kl4biwkirc43ke33jiy5slnd3mv2trq.b32.i2p",
	},
}

// zoneSeeds is connect_to_seed for a zone whose white list is empty: the
// seeds, in a random order, are asked through the proxy for their peer
// lists until one answers (just_take_peerlist: handshake, merge, hang up).
func (n *Node) zoneSeeds(z *zone) {
	seeds := zoneSeedNodes[z.cfg.Zone]
	for _, i := range mrand.Perm(len(seeds)) {
		if n.ctx.Err() != nil {
			return
		}
		a, err := anonaddr.Parse(seeds[i], 0)
		if err != nil {
			continue
		}
		if n.takePeerList(z, a) == nil {
			return
		}
	}
}

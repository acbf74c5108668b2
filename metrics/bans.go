package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/gonero/gonero/peerinfo"
)

// BanCounter is a Peers that reports its bans (p2p.Node).
type BanCounter interface {
	BanStats() peerinfo.BanStats
}

// banCollector reads the ban figures once per scrape.
type banCollector struct {
	peers                                         BanCounter
	bans, entries, reloads, reloadErrors, dropped *prometheus.Desc
	dnsUpdates, dnsFailures                       *prometheus.Desc
}

func newBanCollector(p BanCounter) *banCollector {
	return &banCollector{peers: p,
		bans: prometheus.NewDesc("gonero_p2p_bans", "Bans in force (P2P and RPC), by kind (host, subnet).",
			[]string{"kind"}, nil),
		entries: prometheus.NewDesc("gonero_ban_list_entries", "Hosts and subnets the --ban-list file holds.", nil, nil),
		reloads: prometheus.NewDesc("gonero_ban_list_reloads_total",
			"Times a changed --ban-list file was applied.", nil, nil),
		reloadErrors: prometheus.NewDesc("gonero_ban_list_reload_errors_total",
			"Changed --ban-list files refused (unreadable or a bad line); the last good version stays.", nil, nil),
		dropped: prometheus.NewDesc("gonero_ban_list_dropped_connections_total",
			"P2P connections dropped because a --ban-list reload banned their host.", nil, nil),
		dnsUpdates: prometheus.NewDesc("gonero_dns_blocklist_updates_total",
			"DNS blocklist updates applied (--enable-dns-blocklist).", nil, nil),
		dnsFailures: prometheus.NewDesc("gonero_dns_blocklist_failures_total",
			"DNS blocklist updates without a majority of authenticated, agreeing answers.", nil, nil),
	}
}

func (c *banCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.bans, c.entries, c.reloads, c.reloadErrors, c.dropped, c.dnsUpdates, c.dnsFailures} {
		ch <- d
	}
}

func (c *banCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.peers.BanStats()
	ch <- prometheus.MustNewConstMetric(c.bans, prometheus.GaugeValue, float64(s.Hosts), "host")
	ch <- prometheus.MustNewConstMetric(c.bans, prometheus.GaugeValue, float64(s.Subnets), "subnet")
	ch <- prometheus.MustNewConstMetric(c.entries, prometheus.GaugeValue, float64(s.ListEntries))
	ch <- prometheus.MustNewConstMetric(c.reloads, prometheus.CounterValue, float64(s.ListReloads))
	ch <- prometheus.MustNewConstMetric(c.reloadErrors, prometheus.CounterValue, float64(s.ListReloadErrors))
	ch <- prometheus.MustNewConstMetric(c.dropped, prometheus.CounterValue, float64(s.ListDropped))
	ch <- prometheus.MustNewConstMetric(c.dnsUpdates, prometheus.CounterValue, float64(s.DNSUpdates))
	ch <- prometheus.MustNewConstMetric(c.dnsFailures, prometheus.CounterValue, float64(s.DNSFailures))
}

//go:build race

package httpd

// raceEnabled: the race detector slows everything ~10x; load tests scale
// their attack and expectations down.
const raceEnabled = true

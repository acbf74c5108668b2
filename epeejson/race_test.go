//go:build race

package epeejson

// raceEnabled: under the race detector, allocation counts are not the
// program's (sync.Pool drops items at random, the detector allocates its
// own): a test that wants zero allocations checks it in plain runs only.
const raceEnabled = true

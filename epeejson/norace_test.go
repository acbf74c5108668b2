//go:build !race

package epeejson

const raceEnabled = false

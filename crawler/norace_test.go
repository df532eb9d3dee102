//go:build !race

package crawler

// raceEnabled is true under the race detector, which slows the tests
// that stream hundreds of megabytes too much to run them.
const raceEnabled = false

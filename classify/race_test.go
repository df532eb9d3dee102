//go:build race

package classify

// The race detector slows regex matching tenfold; the long tests do less
// under it.
func init() { raceEnabled = true }

//go:build !race

package main

// raceEnabled is true under the race detector, under which the tests read
// databases too slowly to check many of them.
const raceEnabled = false

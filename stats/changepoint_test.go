package stats

import "testing"

// TestFindChangeEdges: too short or flat sequences have no split; a clear
// step is split where it is, with the sums of each side.
func TestFindChangeEdges(t *testing.T) {
	for _, pts := range [][]Point{nil, {{Runs: 5, Hits: 2}}, {{Runs: 4}, {Runs: 6}}, {{Runs: 3, Hits: 3}, {Runs: 3}}} {
		if cp := FindChange(pts, Up, 1); cp.Split != 0 || cp.P != 1 {
			t.Errorf("%v: split %d p %v, want none", pts, cp.Split, cp.P)
		}
	}
	pts := []Point{{5, 0}, {6, 0}, {4, 0}, {7, 0}, {5, 3}, {6, 4}, {5, 2}, {8, 3}}
	cp := FindChange(pts, Up, 1)
	if cp.Split != 4 || cp.RunsBefore != 22 || cp.HitsBefore != 0 || cp.RunsAfter != 24 || cp.HitsAfter != 12 || cp.P >= 0.01 {
		t.Errorf("step: %+v", cp)
	}
	if cp.Lo > 4 || cp.Hi < 4 {
		t.Errorf("interval %d..%d misses 4", cp.Lo, cp.Hi)
	}
	if down := FindChange(pts, Down, 1); down.Split != 0 {
		t.Errorf("an onset found as an end: %+v", down)
	}
}

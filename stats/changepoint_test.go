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

// TestPValueBounds: a flat sequence stops early with a p-value in (0, 1];
// a clear step keeps every shuffle and cannot go below 1/(Permutations+1).
func TestPValueBounds(t *testing.T) {
	flat := []Point{{5, 1}, {4, 1}, {6, 2}, {5, 1}, {3, 1}, {6, 1}, {4, 2}, {5, 1}}
	if cp := FindChange(flat, Up, 3); cp.Split != 0 && (cp.P <= 0.05 || cp.P > 1) {
		t.Errorf("flat: p %v", cp.P)
	}
	step := []Point{{9, 0}, {8, 0}, {9, 0}, {7, 0}, {8, 5}, {9, 6}, {8, 5}, {9, 6}}
	if cp := FindChange(step, Up, 3); cp.P != 1.0/(Permutations+1) {
		t.Errorf("step: p %v, want %v", cp.P, 1.0/(Permutations+1))
	}
}

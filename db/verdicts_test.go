package db

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"testing"
	"time"
)

func TestReplaceAnalysis(t *testing.T) {
	d := anStore(t)
	ctx := t.Context()
	first := []SymptomVerdict{
		anVerdict("etcd", ScopeEdge, "4.13->4.14 minor", CompareRelease, "regression"),
		anVerdict("upgrade", ScopeEdge, "4.13->4.14 minor", CompareRelease, "flake"),
	}
	nan := anVerdict("etcd", ScopeJob, anMinor.Name, CompareWindow, "insufficient")
	nan.BasisRuns, nan.BasisHits, nan.BasisRate, nan.P = 0, 0, math.NaN(), math.NaN()
	first = append(first, nan)
	rates := []TestFlakeRate{{Scope: ScopeJob, Key: anMinor.Name, Suite: "s", Name: "a", Runs: 4, Failures: 1, Flakes: 2, FlakeRate: 0.5}}
	if err := d.ReplaceAnalysis(ctx, first, rates); err != nil {
		t.Fatal(err)
	}
	got, err := d.Verdicts(ctx, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Title != "etcd refused" || got[2].Bug != "https://issues.redhat.com/browse/OCPBUGS-1" {
		t.Fatalf("verdicts = %+v", got)
	}
	// NaN is stored as NULL and read back as NaN.
	if v := got[0]; v.Scope != ScopeEdge || got[1].Scope != ScopeJob || !math.IsNaN(got[1].BasisRate) || !math.IsNaN(got[1].P) {
		t.Errorf("order or NaN: %+v", got)
	}
	if n := queryStrings(t, d.db, `SELECT count(*) FROM symptom_verdicts WHERE p_value IS NULL AND basis_rate IS NULL`); n[0] != "1" {
		t.Errorf("NaN rows stored as NULL: %v", n)
	}
	if got[0].ComputedAt != anNow {
		t.Errorf("computed_at = %v", got[0].ComputedAt)
	}
	fr, err := d.TestFlakeRates(ctx, Filter{})
	if err != nil || len(fr) != 1 || fr[0].ComputedAt.IsZero() {
		t.Errorf("flake rates = %+v, %v", fr, err)
	}

	// A bad row fails the whole replacement: the first analysis stays.
	for name, bad := range map[string]func(*SymptomVerdict){
		"verdict":              func(v *SymptomVerdict) { v.Verdict = "maybe" },
		"scope":                func(v *SymptomVerdict) { v.Scope = "cluster" },
		"comparison":           func(v *SymptomVerdict) { v.Comparison = "week" },
		"hits above runs":      func(v *SymptomVerdict) { v.SampleHits = 21 },
		"rate above 1":         func(v *SymptomVerdict) { v.SampleRate = 1.5 },
		"a job by release":     func(v *SymptomVerdict) { v.Scope, v.Key = ScopeJob, anMinor.Name },
		"presubmit by release": func(v *SymptomVerdict) { v.Scope, v.Key = ScopePresubmit, anPre.Name },
		"unknown symptom":      func(v *SymptomVerdict) { v.Symptom = "no-such-symptom" },
		"same key twice": func(v *SymptomVerdict) {
			*v = anVerdict("etcd", ScopeVariant, "4.13->4.14 minor aws ovn amd64", CompareWindow, "flake")
		},
		"p above 1":            func(v *SymptomVerdict) { v.P = 1.01 },
		"negative basis":       func(v *SymptomVerdict) { v.BasisRuns, v.BasisHits = -1, -1 },
		"the verdict is empty": func(v *SymptomVerdict) { v.Verdict = "" },
	} {
		v := anVerdict("etcd", ScopeVariant, "4.13->4.14 minor aws ovn amd64", CompareRelease, "none")
		bad(&v)
		second := []SymptomVerdict{anVerdict("etcd", ScopeVariant, "4.13->4.14 minor aws ovn amd64", CompareWindow, "none"), v}
		if err := d.ReplaceAnalysis(ctx, second, nil); err == nil {
			t.Errorf("%s: ReplaceAnalysis accepted %+v", name, v)
		}
		if after, err := d.Verdicts(ctx, Filter{}); err != nil || !reflect.DeepEqual(fmt.Sprint(after), fmt.Sprint(got)) {
			t.Errorf("%s: after a failed replacement\n got %+v\nwant %+v", name, after, got)
		}
	}
	for name, bad := range map[string]TestFlakeRate{
		"no runs":           {Scope: ScopeJob, Key: "j", Suite: "s", Name: "a", Runs: 0},
		"flakes and fails":  {Scope: ScopeJob, Key: "j", Suite: "s", Name: "a", Runs: 2, Failures: 2, Flakes: 1, FlakeRate: 0.5},
		"rate above 1":      {Scope: ScopeJob, Key: "j", Suite: "s", Name: "a", Runs: 2, Flakes: 1, FlakeRate: 2},
		"scope of no scope": {Scope: "suite", Key: "j", Suite: "s", Name: "a", Runs: 2},
	} {
		if err := d.ReplaceAnalysis(ctx, nil, []TestFlakeRate{bad}); err == nil {
			t.Errorf("%s: ReplaceAnalysis accepted %+v", name, bad)
		}
	}

	// Replacing removes what the new analysis does not have.
	if err := d.ReplaceAnalysis(ctx, first[1:2], nil); err != nil {
		t.Fatal(err)
	}
	if n := count(t, d, "symptom_verdicts"); n != 1 {
		t.Errorf("%d verdicts after replacing with one", n)
	}
	if n := count(t, d, "test_flake_rates"); n != 0 {
		t.Errorf("%d flake rates after replacing with none", n)
	}
}

func TestVerdictsFilter(t *testing.T) {
	d := anStore(t)
	var vs []SymptomVerdict
	for _, k := range []struct{ scope, key, comparison string }{
		{ScopeJob, anMinor.Name, CompareWindow},
		{ScopeJob, anMicro.Name, CompareWindow},
		{ScopeEdge, "4.13->4.14 minor", CompareRelease},
		{ScopeEdge, "4.13->4.14 minor", CompareWindow},
		{ScopeEdge, "4.14 micro", CompareRelease},
		{ScopeVariant, "4.13->4.14 minor aws ovn amd64 ha", CompareRelease},
		{ScopeVariant, "4.14 micro metal ovn amd64 ha", CompareRelease},
	} {
		vs = append(vs, anVerdict("etcd", k.scope, k.key, k.comparison, "flake"))
	}
	vs = append(vs, anVerdict("upgrade", ScopeEdge, "4.14 micro", CompareRelease, "none"))
	if err := d.ReplaceAnalysis(t.Context(), vs, nil); err != nil {
		t.Fatal(err)
	}
	keys := func(f Filter) []string {
		t.Helper()
		got, err := d.Verdicts(t.Context(), f)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, v := range got {
			out = append(out, v.Symptom+" "+v.Scope+" "+v.Key+" "+v.Comparison)
		}
		return out
	}
	if got, want := keys(Filter{Job: anMinor.Name}), []string{
		"etcd edge 4.13->4.14 minor release", "etcd edge 4.13->4.14 minor window",
		"etcd job " + anMinor.Name + " window", "etcd variant 4.13->4.14 minor aws ovn amd64 ha release",
	}; !slices.Equal(got, want) {
		t.Errorf("verdicts of a job\n got %q\nwant %q", got, want)
	}
	if got, want := keys(Filter{Symptom: "upgrade"}), []string{"upgrade edge 4.14 micro release"}; !slices.Equal(got, want) {
		t.Errorf("verdicts of a symptom: %q, want %q", got, want)
	}
	if got := keys(Filter{Scope: ScopeEdge, Key: "4.14 micro"}); len(got) != 2 {
		t.Errorf("verdicts of an edge: %q", got)
	}
	if got := keys(Filter{Since: anNow.Add(time.Second)}); len(got) != 0 {
		t.Errorf("verdicts computed after the analysis: %q", got)
	}
	// v_regressions lists regressions and new symptoms only.
	vs[0].Verdict, vs[1].Verdict = "regression", "new"
	vs[1].BasisHits, vs[1].BasisRate = 0, 0
	if err := d.ReplaceAnalysis(t.Context(), vs, nil); err != nil {
		t.Fatal(err)
	}
	got := queryStrings(t, d.db, `SELECT verdict || ' ' || scope_key || ' ' || title || ' ' || delta_points FROM v_regressions`)
	if want := []string{"regression " + anMinor.Name + " etcd refused 45.0", "new " + anMicro.Name + " etcd refused 50.0"}; !slices.Equal(got, want) {
		t.Errorf("v_regressions\n got %q\nwant %q", got, want)
	}
}

// TestFlakeRatesBounded: test_flake_rates keeps only the tests that failed
// or flaked at least once in their scope key, so that it grows with the
// failures it summarises and not with every test times every scope key.
// Before, a run of a million passing tests gave three million rows (about
// 1.4 GB with its indexes). A wrong row is still refused.
func TestFlakeRatesBounded(t *testing.T) {
	ctx := t.Context()
	d := openTest(t)
	var rates []TestFlakeRate
	for i := range 300 {
		for _, scope := range []string{ScopeJob, ScopeEdge, ScopeVariant} {
			r := TestFlakeRate{Scope: scope, Key: "k", Suite: "openshift-tests", Name: fmt.Sprintf("[sig-arch] test %d", i), Runs: 4}
			switch i % 100 {
			case 1:
				r.Failures = 1
			case 2:
				r.Flakes, r.FlakeRate = 2, 0.5
			}
			rates = append(rates, r)
		}
	}
	if err := d.ReplaceAnalysis(ctx, nil, rates); err != nil {
		t.Fatal(err)
	}
	if n := count(t, d, "test_flake_rates"); n != 3*6 {
		t.Errorf("%d rows of test_flake_rates, want %d: the tests that failed or flaked, in each of 3 scopes", n, 3*6)
	}
	got := queryStrings(t, d.db, `SELECT count(*) FROM test_flake_rates WHERE failures = 0 AND flakes = 0`)
	if got[0] != "0" {
		t.Errorf("%s rows of tests that never failed", got[0])
	}
	for name, bad := range map[string]TestFlakeRate{
		"no runs":        {Scope: ScopeJob, Key: "j", Suite: "s", Name: "a"},
		"no scope":       {Key: "j", Suite: "s", Name: "a", Runs: 2},
		"an unknown one": {Scope: "suite", Key: "j", Suite: "s", Name: "a", Runs: 2},
	} {
		if err := d.ReplaceAnalysis(ctx, nil, []TestFlakeRate{bad}); err == nil {
			t.Errorf("%s: ReplaceAnalysis accepted %+v", name, bad)
		}
	}
}

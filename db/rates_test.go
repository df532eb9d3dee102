package db

import (
	"slices"
	"testing"
)

// TestSymptomRatesView: v_symptom_rates counts the runs a rate counts, and
// the runs it leaves out, per scope; presubmits only in their own scope.
func TestSymptomRatesView(t *testing.T) {
	d := anStore(t)
	got := queryStrings(t, d.db, `SELECT symptom || ' ' || scope || ' ' || scope_key || ' ' || finished_runs || ' ' ||
	runs_with || ' ' || failed_with || ' ' || passed_with || ' ' || printf('%.3f', rate) || ' ' || failed_runs || ' ' ||
	coalesce(printf('%.3f', share_of_failures), 'NULL') || ' ' || left_out
FROM v_symptom_rates WHERE symptom = 'etcd' ORDER BY symptom, scope, scope_key`)
	want := []string{
		"etcd edge 4.13->4.14 minor 3 2 1 1 0.667 2 0.500 1",
		"etcd edge 4.14 micro 2 1 1 0 0.500 1 1.000 0",
		"etcd job " + anMicro.Name + " 2 1 1 0 0.500 1 1.000 0",
		"etcd job " + anMinor.Name + " 3 2 1 1 0.667 2 0.500 1",
		"etcd job " + anOld.Name + " 1 1 1 0 1.000 1 1.000 0",
		"etcd presubmit " + anPre.Name + " 1 1 1 0 1.000 1 1.000 0",
		"etcd variant 4.13->4.14 minor aws ovn amd64 ha 3 2 1 1 0.667 2 0.500 1",
		"etcd variant 4.14 micro metal ovn amd64 ha 2 1 1 0 0.500 1 1.000 0",
	}
	if !slices.Equal(got, want) {
		t.Errorf("v_symptom_rates\n got %q\nwant %q", got, want)
	}
}

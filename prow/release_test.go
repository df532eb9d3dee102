package prow

import "testing"

func TestReleaseOf(t *testing.T) {
	for in, want := range map[string]string{
		"4.14.0-0.ci-2023-09-01-000000":      "4.14",
		"4.14.0-0.nightly-2023-09-01-000000": "4.14",
		"4.13.10":                            "4.13",
		"v4.9.0":                             "4.9",
		"4.14.0-rc.3":                        "4.14",
		"4.16.0-0.nightly-arm64-2024-03-01":  "4.16",
		"5.0.0-ec.1":                         "5.0",
		" 4.10.3 ":                           "4.10",
		"4.1":                                "4.1",
		"":                                   "",
		"4":                                  "",
		"4.":                                 "",
		"latest":                             "",
		"quay.io/ocp-release:4.14.1":         "",
		"12345.1":                            "",
	} {
		if got := ReleaseOf(in); got != want {
			t.Errorf("ReleaseOf(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestUpgradeKind(t *testing.T) {
	tests := []struct{ from, to, want string }{
		{"4.13.10", "4.13.11", UpgradeMicro},
		{"4.14.0-rc.3", "4.14.1", UpgradeMicro},
		{"4.14.0-0.nightly-2023-09-01-000000", "4.14.0-0.nightly-2023-09-02-000000", UpgradeMicro},
		{"4.13.10", "4.14.0-0.nightly-2023-09-01-000000", UpgradeMinor},
		{"4.9.59", "4.10.0", UpgradeMinor},
		{"4.12.5", "4.14.1", UpgradeMulti},
		{"4.22.3", "5.0.0", UpgradeMajor},
		{"4.6.1", "4.5.3", UpgradeMinor}, // a rollback, by distance
		{"", "4.14.1", ""},
		{"4.14.1", "", ""},
		{"garbage", "4.14.1", ""},
	}
	for _, tt := range tests {
		t.Run(tt.from+"->"+tt.to, func(t *testing.T) {
			if got := UpgradeKind(tt.from, tt.to); got != tt.want {
				t.Errorf("UpgradeKind(%q, %q) = %q, want %q", tt.from, tt.to, got, tt.want)
			}
		})
	}
}

package api

import "testing"

func TestServiceVersionOf(t *testing.T) {
	for _, tc := range []struct{ build, want string }{
		{"1.2.3", "1.2.3"},
		{"9.9.9-new", "9.9.9-new"},
		{"8.1.0.1", "8.1.0+1"},
		{"v8.1.0", "8.1.0"},
		{"v8.1.0-3-ge8ed480-dirty", "8.1.0+3-ge8ed480-dirty"},
		{"e8ed480-dirty", "0.0.0+e8ed480-dirty"},
		{"0.1.0-dev", "0.1.0-dev"},
		{"", "0.0.0"},
		{"build 7/x", "0.0.0+build.7.x"},
	} {
		got := ServiceVersionOf(tc.build)
		if got != tc.want || !semver().MatchString(got) {
			t.Errorf("ServiceVersionOf(%q) = %q, want %q (semver)", tc.build, got, tc.want)
		}
	}
}

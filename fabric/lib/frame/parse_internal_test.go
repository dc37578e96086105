package frame

import (
	"math"
	"reflect"
	"testing"
	"time"
)

func TestParseISO(t *testing.T) {
	for _, tc := range []struct {
		in       string
		ok       bool
		want     time.Time // when ok and in range
		inRange  bool
		dateOnly bool
		zone     bool
	}{
		{"2024-01-31", true, time.Date(2024, 1, 31, 0, 0, 0, 0, time.UTC), true, true, false},
		{"2024-01-31T10:20", true, time.Date(2024, 1, 31, 10, 20, 0, 0, time.UTC), true, false, false},
		{"2024-01-31t10:20:30,5", true, time.Date(2024, 1, 31, 10, 20, 30, 5e8, time.UTC), true, false, false},
		{"2024-01-31 10:20:30.1234567891", true, time.Date(2024, 1, 31, 10, 20, 30, 123456789, time.UTC), true, false, false},
		{"2024-01-31T10:20:30z", true, time.Date(2024, 1, 31, 10, 20, 30, 0, time.UTC), true, false, true},
		{"2024-01-31T00:20:30+01", true, time.Date(2024, 1, 30, 23, 20, 30, 0, time.UTC), true, false, true},
		{"2024-01-31T10:20:30-0230", true, time.Date(2024, 1, 31, 12, 50, 30, 0, time.UTC), true, false, true},
		// The bounds of datetime64[ns].
		{"2262-04-11T23:47:16.854775807Z", true, time.Unix(0, math.MaxInt64).UTC(), true, false, true},
		{"2262-04-11T23:47:16.854775808Z", true, time.Time{}, false, false, true},
		{"2262-04-10T23:59:59-23:59", true, time.Time{}, false, false, true},
		{"1677-09-21T00:12:43.145224193Z", true, time.Unix(0, math.MinInt64+1).UTC(), true, false, true},
		{"1677-09-21T00:12:43.145224192Z", true, time.Time{}, false, false, true},
		{"1677-09-22T00:00:00+23:00", true, time.Date(1677, 9, 21, 1, 0, 0, 0, time.UTC), true, false, true},
		{"1677-09-21T00:00:00+23:59", true, time.Time{}, false, false, true},
		{"0001-01-01T00:00:00", true, time.Time{}, false, false, false},
		{"9999-12-31T23:59:59", true, time.Time{}, false, false, false},
		{"2000-02-29", true, time.Date(2000, 2, 29, 0, 0, 0, 0, time.UTC), true, true, false},
		{"1900-02-29", false, time.Time{}, false, false, false},
		{"2024-04-31", false, time.Time{}, false, false, false},
		{"2024-00-01", false, time.Time{}, false, false, false},
		{"2024-1-01", false, time.Time{}, false, false, false},
		{"2024-01-01X", false, time.Time{}, false, false, false},
		{"2024-01-01T24:00", false, time.Time{}, false, false, false},
		{"2024-01-01T10:60", false, time.Time{}, false, false, false},
		{"2024-01-01T10:00:60", false, time.Time{}, false, false, false},
		{"2024-01-01T10:00:00.", false, time.Time{}, false, false, false},
		{"2024-01-01T10:00+2400", false, time.Time{}, false, false, false},
		{"2024-01-01T10:00+01:60", false, time.Time{}, false, false, false},
		{"2024-01-01T10:00+1", false, time.Time{}, false, false, false},
		{"2024-01-01T10:00 UTC", false, time.Time{}, false, false, false},
		{"", false, time.Time{}, false, false, false},
	} {
		got, ok := parseISO([]byte(tc.in))
		if ok != tc.ok {
			t.Errorf("parseISO(%q) ok = %v", tc.in, ok)
			continue
		}
		if !ok {
			continue
		}
		if got.dateOnly != tc.dateOnly || got.zone != tc.zone {
			t.Errorf("parseISO(%q) = %+v", tc.in, got)
		}
		ns, inRange := got.unixNanos()
		if inRange != tc.inRange {
			t.Errorf("parseISO(%q).unixNanos() in range = %v (%d)", tc.in, inRange, ns)
			continue
		}
		if inRange && !time.Unix(0, ns).Equal(tc.want) {
			t.Errorf("parseISO(%q) = %v, want %v", tc.in, time.Unix(0, ns).UTC(), tc.want)
		}
	}
}

func TestParseNumbers(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "-0": 0, "+12": 12, "-9223372036854775808": math.MinInt64, "123456789012345678": 123456789012345678} {
		if got, ok := parseInt([]byte(in)); !ok || got != want {
			t.Errorf("parseInt(%q) = %d, %v", in, got, ok)
		}
	}
	for _, in := range []string{"", "-", "+", "1.0", "1e3", "9223372036854775808", "12a", "1_000", " 1"} {
		if _, ok := parseInt([]byte(in)); ok {
			t.Errorf("parseInt(%q) ok", in)
		}
	}
	for _, in := range []string{"", "e3", "abc", "--1", "1,5", "true"} {
		if _, ok := parseFloat([]byte(in)); ok {
			t.Errorf("parseFloat(%q) ok", in)
		}
	}
	for in, want := range map[string]bool{"true": true, "TRUE": true, "False": false, "fAlSe": false} {
		if got, ok := parseBool([]byte(in)); !ok || got != want {
			t.Errorf("parseBool(%q) = %v, %v", in, got, ok)
		}
	}
	for _, in := range []string{"t", "yes", "1", "truee", "fals"} {
		if _, ok := parseBool([]byte(in)); ok {
			t.Errorf("parseBool(%q) ok", in)
		}
	}
}

func TestUniqueNames(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{[]string{"a", "b"}, []string{"a", "b"}},
		{[]string{"a", "a", "a"}, []string{"a", "a.1", "a.2"}},
		{[]string{"a", "", "a", "a", "a.1"}, []string{"a", "Unnamed: 1", "a.1", "a.2", "a.1.1"}},
		{[]string{"a.1", "a", "a"}, []string{"a.1", "a", "a.1.1"}},
		{[]string{"", ""}, []string{"Unnamed: 0", "Unnamed: 1"}},
	} {
		if got := uniqueNames(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("uniqueNames(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestExcelTime(t *testing.T) {
	for _, tc := range []struct {
		serial   float64
		date1904 bool
		want     time.Time
		ok       bool
	}{
		{0, false, time.Date(1899, 12, 31, 0, 0, 0, 0, time.UTC), true},
		{1, false, time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC), true},
		{59.5, false, time.Date(1900, 2, 28, 12, 0, 0, 0, time.UTC), true},
		{61, false, time.Date(1900, 3, 1, 0, 0, 0, 0, time.UTC), true},
		{45293.000011574, false, time.Date(2024, 1, 2, 0, 0, 1, 0, time.UTC), true},
		{45293.0000005, false, time.Date(2024, 1, 2, 0, 0, 0, 43e6, time.UTC), true},
		{2958465.99999, false, time.Date(9999, 12, 31, 23, 59, 59, 136e6, time.UTC), true},
		{0, true, time.Date(1904, 1, 1, 0, 0, 0, 0, time.UTC), true},
		{-1, false, time.Time{}, false},
		{2958466, false, time.Time{}, false},
		{math.NaN(), false, time.Time{}, false},
		{math.Inf(1), false, time.Time{}, false},
	} {
		got, ok := excelTime(tc.serial, tc.date1904)
		if ok != tc.ok || ok && !got.Equal(tc.want) {
			t.Errorf("excelTime(%v, %v) = %v, %v, want %v", tc.serial, tc.date1904, got, ok, tc.want)
		}
	}
}

// TestMemBytesSlices: a slice counts its part of the buffers.
func TestMemBytesSlices(t *testing.T) {
	f, err := FromRows([]string{"n", "s"}, [][]any{{int64(1), "aaaa"}, {int64(2), "bb"}, {nil, nil}, {int64(4), "d"}})
	if err != nil {
		t.Fatal(err)
	}
	// n: 4 rows x 8 bytes + a 1-byte bitmap; s: 5 offsets x 4 bytes, 7
	// bytes of text and a bitmap.
	if got, want := f.MemBytes(), int64(4*8+1+5*4+7+1); got != want {
		t.Errorf("MemBytes = %d, want %d", got, want)
	}
	if got, want := f.Head(1).MemBytes(), int64(8+1+2*4+4+1); got != want {
		t.Errorf("Head(1).MemBytes = %d, want %d", got, want)
	}
	if got := f.MemSizeMB(); got != 0.000058 {
		t.Errorf("MemSizeMB = %v, want 0.000058 (6 decimals)", got)
	}
}

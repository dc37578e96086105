package artifact

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// BenchmarkAddCPU: what an add costs before the store (parse, check,
// encode) and a get after it (decode), for the dashboard of
// bench/artifacts.sh given as JSON.
func BenchmarkAddCPU(b *testing.B) {
	doc, err := os.ReadFile("testdata/dashboard.yaml")
	if err != nil {
		b.Fatal(err)
	}
	var v any
	if err := yaml.Unmarshal([]byte(strings.Replace(string(doc), "NAME", "d1", 1)), &v); err != nil {
		b.Fatal(err)
	}
	text, _ := json.Marshal(v)
	r := &Repo{}
	ctx := context.Background()
	b.Run("parse", func(b *testing.B) {
		for range b.N {
			if _, err := Parse(text); err != nil {
				b.Fatal(err)
			}
		}
	})
	d, _ := Parse(text)
	b.Run("validate", func(b *testing.B) {
		for range b.N {
			if err := r.Validate(ctx, Dashboard, d); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode", func(b *testing.B) {
		for range b.N {
			if _, err := d.Decode(); err != nil {
				b.Fatal(err)
			}
		}
	})
	rec := Record{Doc: d, Source: "json"}
	b.Run("encode", func(b *testing.B) {
		for range b.N {
			rec.MarshalJSON()
		}
	})
	stored, _ := rec.MarshalJSON()
	b.Run("decodeRecord", func(b *testing.B) {
		for range b.N {
			if _, err := decodeRecord(stored); err != nil {
				b.Fatal(err)
			}
		}
	})
}

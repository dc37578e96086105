package stdlib

import (
	"os"
	"testing"
	"time"
)

func FuzzWatch(f *testing.F) {
	f.Add("a: 1")
	f.Fuzz(func(t *testing.T, s string) {
		tm := time.AfterFunc(3*time.Second, func() {
			os.WriteFile("/tmp/scratch/hang.yaml", []byte(s), 0o644)
			panic("hang")
		})
		defer tm.Stop()
		v, err := DecodeYAML([]byte(s))
		if err == nil {
			EncodeYAML(v)
		}
		DecodeAllYAML([]byte(s))
	})
}

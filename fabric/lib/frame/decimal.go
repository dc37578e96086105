package frame

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// decimalText returns value i of a DECIMAL array as text with as many
// fraction digits as its scale says ("1.50" at scale 2, never "1.5"),
// and whether arr is a decimal array. The value must not be null.
func decimalText(arr arrow.Array, i int) (s string, ok bool) {
	dt, ok := arr.DataType().(arrow.DecimalType)
	if !ok {
		return "", false
	}
	scale := dt.GetScale()
	defer func() {
		// A scale the type's range cannot hold (from a foreign file):
		// the library's own text, without the kept zeros.
		if recover() != nil {
			s, ok = arr.ValueStr(i), true
		}
	}()
	switch a := arr.(type) {
	case *array.Decimal32:
		return a.Value(i).ToString(scale), true
	case *array.Decimal64:
		return a.Value(i).ToString(scale), true
	case *array.Decimal128:
		return a.Value(i).ToString(scale), true
	case *array.Decimal256:
		return a.Value(i).ToString(scale), true
	}
	return "", false
}

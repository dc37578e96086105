package frame

import (
	"fmt"

	"github.com/apache/arrow-go/v18/parquet/file"
)

// MaxColumns bounds the columns of a table the fabric reads or writes.
// Each column costs a reader or a writer tens of kilobytes whatever its
// rows: a 2.5 MB CSV of 20,000 columns took a worker's process from 157
// MB to 1.1 GB for a job that kept ten rows. Tables of a few thousand
// columns are still read.
const MaxColumns = 4096

// checkWidth fails a table of more than MaxColumns columns, naming it.
func checkWidth(name string, n int) error {
	if n > MaxColumns {
		return fmt.Errorf("%s: %d columns: a table has at most %d", name, n, MaxColumns)
	}
	return nil
}

// checkParquetWidth fails a Parquet file of more than MaxColumns leaf
// columns, before any column is read; it closes pf then.
func checkParquetWidth(pf *file.Reader, name string) error {
	if err := checkWidth(name, pf.MetaData().Schema.NumColumns()); err != nil {
		pf.Close()
		return err
	}
	return nil
}

// checkSourceWidth fails a source of more than MaxColumns columns,
// closing it then.
func checkSourceWidth(src Source, name string) (Source, error) {
	if err := checkWidth(name, src.Schema().NumFields()); err != nil {
		src.Close()
		return nil, err
	}
	return src, nil
}

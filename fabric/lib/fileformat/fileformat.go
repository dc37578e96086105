// Package fileformat names the file formats and compressions the fabric
// reads and writes, and tells them from a file's name. It has no data
// libraries, so that the lean client can tell whether a file asked for is
// in a stored file's format (and copy the stored bytes) without them.
package fileformat

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Format names a file format.
type Format string

// The formats Open, NewSink, Read and Write know. Auto means "tell from the
// file name's extension".
const (
	Auto    Format = "auto"
	CSV     Format = "csv"
	JSON    Format = "json"
	JSONL   Format = "jsonl"
	Parquet Format = "parquet"
	XLSX    Format = "xlsx"
	XLS     Format = "xls" // legacy binary Excel (BIFF8): read only
	ORC     Format = "orc"
)

// Compression names the compression of a CSV or JSON file.
type Compression string

// The compressions, told from a trailing extension (.gz, .bz2, .xz, .zst).
const (
	NoCompression Compression = ""
	Gzip          Compression = "gzip"
	Bzip2         Compression = "bzip2"
	XZ            Compression = "xz"
	Zstd          Compression = "zstd"
)

const validFormats = "auto, csv, json, jsonl, parquet, xlsx (or excel), xls, orc"

// ParseFormat parses a format name: auto, csv, json, jsonl (or ndjson),
// parquet, xlsx (or excel), xls (the legacy binary workbook) and orc. The
// empty string is auto.
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto":
		return Auto, nil
	case "csv":
		return CSV, nil
	case "json":
		return JSON, nil
	case "jsonl", "ndjson":
		return JSONL, nil
	case "parquet", "pq":
		return Parquet, nil
	case "xlsx", "excel":
		return XLSX, nil
	case "xls":
		return XLS, nil
	case "orc":
		return ORC, nil
	}
	return "", fmt.Errorf("unknown format %q: want one of %s", s, validFormats)
}

// compressionExts are the extensions that tell a compression.
var compressionExts = []struct {
	ext string
	c   Compression
}{{".gz", Gzip}, {".gzip", Gzip}, {".bz2", Bzip2}, {".xz", XZ}, {".zst", Zstd}, {".zstd", Zstd}}

// Detect resolves the format of path: f itself unless it is Auto (or
// empty), in which case the extension tells. It also returns the
// compression told by a trailing .gz, .bz2, .xz, .zst or .zstd, which only
// CSV and JSON files may have.
func Detect(path string, f Format) (Format, Compression, error) {
	base := strings.ToLower(filepath.Base(path))
	c := NoCompression
	for _, e := range compressionExts {
		if b, ok := strings.CutSuffix(base, e.ext); ok {
			c, base = e.c, b
			break
		}
	}
	if f == "" {
		f = Auto
	}
	if f != Auto {
		pf, err := ParseFormat(string(f))
		if err != nil {
			return "", "", err
		}
		f = pf
	} else {
		switch filepath.Ext(base) {
		case ".csv":
			f = CSV
		case ".json":
			f = JSON
		case ".jsonl", ".ndjson":
			f = JSONL
		case ".parquet", ".pq", ".parq":
			f = Parquet
		case ".xlsx", ".xlsm":
			f = XLSX
		case ".xls":
			f = XLS
		case ".orc":
			f = ORC
		default:
			return "", "", fmt.Errorf("cannot tell the format of %q from its extension: give a format (csv, json, jsonl, parquet, xlsx, xls)", filepath.Base(path))
		}
	}
	if c != NoCompression && f != CSV && f != JSON && f != JSONL {
		return "", "", fmt.Errorf("%s: %s compression applies to csv, json and jsonl files only", filepath.Base(path), c)
	}
	return f, c, nil
}

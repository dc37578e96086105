package graphstore

import (
	"errors"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Names follow ArangoDB 3.12's extended naming convention (the
// --database.extended-names default since 3.12): a database or collection
// name may hold any Unicode letter, but it must be valid UTF-8 and in
// Normalization Form C, so that one name is not stored twice under two
// spellings. The rules that still hold, as arangod checks them:
//
//   - a database name is 1 to 128 bytes, a collection name 1 to 256;
//   - neither holds '/' (the separator of document handles and of the
//     store's keys) nor a control character (below 0x20, or 0x7f); a
//     database name holds no ':' either;
//   - neither starts with a digit or a space, nor ends with a space;
//   - a leading '_' names a system database or collection.

// Errors of names.
var (
	// ErrDatabaseNameNFC is the error of a database name that is not in
	// Normalization Form C, with ArangoDB's message.
	ErrDatabaseNameNFC = errors.New("database name is not properly UTF-8 NFC-normalized")
	// ErrCollectionNameNFC is the collection's equivalent.
	ErrCollectionNameNFC = errors.New("collection name is not properly UTF-8 NFC-normalized")
)

// The length limits of names, in bytes.
const (
	MaxDatabaseName   = 128
	MaxCollectionName = 256
)

// validName checks the rules databases and collections share, and the
// characters forbidden beyond them (forbid).
func validName(name string, maxLen int, forbid string) bool {
	if name == "" || len(name) > maxLen || !utf8.ValidString(name) {
		return false
	}
	if c := name[0]; c >= '0' && c <= '9' || c == ' ' || name[len(name)-1] == ' ' {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; c < 0x20 || c == 0x7f || c == '/' {
			return false
		}
	}
	return !strings.ContainsAny(name, forbid)
}

// ValidDatabaseName reports whether name is a database name a user may
// create (extended names; see above). A '_' first names a system
// database, which users do not create.
func ValidDatabaseName(name string) bool {
	return validName(name, MaxDatabaseName, ":") && name[0] != '_'
}

// ValidCollectionName reports whether name can name a collection
// (extended names; a '_' first names a system collection). It does not
// check the normalization (see checkCollectionName).
func ValidCollectionName(name string) bool { return validName(name, MaxCollectionName, "") }

// checkDatabaseName is the error of a database name a user may not
// create, or nil.
func checkDatabaseName(name string) error {
	if !ValidDatabaseName(name) {
		return ErrDatabaseName
	}
	if !norm.NFC.IsNormalString(name) {
		return ErrDatabaseNameNFC
	}
	return nil
}

// checkCollectionName is the error of a name a collection may not take
// (a system one only with system), or nil.
func checkCollectionName(name string, system bool) error {
	if !ValidCollectionName(name) || name[0] == '_' && !system {
		return ErrCollectionName
	}
	if !norm.NFC.IsNormalString(name) {
		return ErrCollectionNameNFC
	}
	return nil
}

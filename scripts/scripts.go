// Package scripts embeds the bundled command scripts: one .star file per
// command group at the root (checksum.star, bot_package.star, ...) and
// shared Starlark libraries under lib/, loaded as @fabric//lib/NAME.star.
package scripts

import "embed"

// FS holds the bundled scripts.
//
//go:embed *.star lib/*.star
var FS embed.FS

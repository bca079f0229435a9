// Package migrations holds the numbered SQL files that build the ledger's schema.
//
// Files are named NNNN_name.sql and applied in order, each in its own transaction; the
// number of the last one applied is the database's schema version. A new table, for a new
// projection, is a new file with the next number. Files never change once released.
package migrations

import "embed"

// FS holds the migration files at its root.
//
//go:embed *.sql
var FS embed.FS

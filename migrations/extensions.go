package migrations

import (
	"io/fs"
	"regexp"
	"slices"
	"sync"
)

// createExtension finds the extensions a migration creates.
var createExtension = regexp.MustCompile(`(?i)CREATE\s+EXTENSION\s+IF\s+NOT\s+EXISTS\s+"?(\w+)"?`)

// Extensions lists the extensions the migrations create, in the order
// they first appear (a copy: the caller may change it). On Citus every
// node needs them before its workers are registered: the distributed
// tables' columns and indexes use them on the workers too.
func Extensions() []string { return slices.Clone(extensions()) }

var extensions = sync.OnceValue(func() []string {
	files, err := fs.Glob(FS, "*.sql")
	if err != nil {
		panic("migrations: " + err.Error()) // the embedded files are read at build time
	}
	var exts []string
	for _, f := range files {
		b, err := FS.ReadFile(f)
		if err != nil {
			panic("migrations: " + err.Error())
		}
		for _, m := range createExtension.FindAllSubmatch(b, -1) {
			if e := string(m[1]); !slices.Contains(exts, e) {
				exts = append(exts, e)
			}
		}
	}
	return exts
})

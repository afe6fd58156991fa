//go:build ignore

// gen_catalog writes catalog_gen.go: the embedded catalog (the files of
// catalog/) parsed and compiled at build time, so that a hook process
// neither parses it nor compiles it on every tool call. It runs with the
// catalog_gen tag (see catalog_emit.go), under which package policy reads
// the catalog from its files.
package main

import (
	"log"
	"os"

	"github.com/rewind-dev/rewind/policy"
)

func main() {
	src, err := policy.GeneratedCatalog()
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile("catalog_gen.go", src, 0o666); err != nil {
		log.Fatal(err)
	}
}

package policy

import "testing"

// BenchmarkCompileCatalog is the catalog compile every hook call pays once.
func BenchmarkCompileCatalog(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := compile(catalogConfig(), catalogOrigin); err != nil {
			b.Fatal(err)
		}
	}
}

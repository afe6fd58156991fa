package policy

import "testing"

func TestCatalogSelfTest(t *testing.T) {
	t.Parallel()
	p, err := New(Default())
	if err != nil {
		t.Fatal(err)
	}
	results := p.SelfTest()
	passed, failed := Summary(results)
	for _, r := range results {
		if !r.OK {
			t.Error(r)
		}
	}
	if passed < 100 {
		t.Errorf("only %d cases ran", passed)
	}
	t.Logf("%d passed, %d failed", passed, failed)
}

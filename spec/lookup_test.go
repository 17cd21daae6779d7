package spec

import "testing"

// TestLookupListIndex: a field path indexes a list by a numeric
// component ("prior_config_list.1.hidden_size", Jukebox's priors); an
// index out of range, negative or not a number finds nothing.
func TestLookupListIndex(t *testing.T) {
	c, err := ParseConfig("config.json", []byte(`{"p": [{"h": 64, "e": {"h": 32}}, {"h": 96}], "m": [[1, 2], [3]], "o": {"h": 7}, "n": null}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, want string
		ok         bool
	}{
		{"p.0.h", "64", true}, {"p.1.h", "96", true}, {"p.0.e.h", "32", true}, {"m.1.0", "3", true},
		{"m.0", "[1, 2]", true}, {"o.h", "7", true},
		{"p.2.h", "", false}, {"p.-1.h", "", false}, {"p.x.h", "", false}, {"p.1.e.h", "", false},
		{"m.1.1", "", false}, {"o.0", "", false}, {"n.0", "", false}, {"p.0.h.0", "", false},
	} {
		raw, ok := c.lookup(tc.path)
		if ok != tc.ok || ok && string(raw) != tc.want {
			t.Errorf("lookup(%q) = %s, %v; want %s, %v", tc.path, raw, ok, tc.want, tc.ok)
		}
	}
}

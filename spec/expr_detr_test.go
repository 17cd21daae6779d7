package spec

import "testing"

// TestExprDetr checks islist (D-FINE's decoder_n_points, a number or a
// list) and pyRound against Python's round(), halves to even.
func TestExprDetr(t *testing.T) {
	e := &env{vals: map[string]any{"l": []any{int64(2), int64(3)}, "n": int64(4),
		"a": int64(1500), "b": int64(2500), "c": int64(2499), "d": int64(2501), "z": int64(500), "w": int64(3000)}}
	for _, c := range []struct {
		src  string
		want int64
	}{
		{"islist(l)", 1}, {"islist(n)", 0}, {"islist(l) ? sum(l) : n*3", 5}, {"islist(n) ? sum(n) : n*3", 12},
		{"at(sort(list(32, 8, 16)), 0)", 8}, {"at(sort(list(32, 8, 16)), 2)", 32}, {"len(sort(list()))", 0},
		{pyRound("a"), 2}, {pyRound("b"), 2}, {pyRound("c"), 2}, {pyRound("d"), 3}, {pyRound("z"), 0}, {pyRound("w"), 3},
	} {
		v, err := parseExpr(c.src).eval(e)
		if err != nil || v != c.want {
			t.Errorf("%s = %v, %v; want %d", c.src, v, err, c.want)
		}
	}
	// lexLastIndex against Python's max(map(str, range(n))).
	for n, want := range map[int64]int64{1: 0, 3: 2, 10: 9, 11: 9, 90: 9, 91: 90, 100: 99, 101: 99, 990: 99, 991: 990, 1000: 999, 1024: 999} {
		e.vals["n"] = n
		if v, err := parseExpr(lexLastIndex("n")).eval(e); err != nil || v != want {
			t.Errorf("lexLastIndex(%d) = %v, %v; want %d", n, v, err, want)
		}
	}
	if _, err := parseExpr("islist(l, n)").eval(e); err == nil {
		t.Errorf("islist of two values: no error")
	}
}

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
	if _, err := parseExpr("islist(l, n)").eval(e); err == nil {
		t.Errorf("islist of two values: no error")
	}
}

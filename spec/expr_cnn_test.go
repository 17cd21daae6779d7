package spec

import "testing"

// TestExprCNN checks the expression functions the convolutional
// families use against Python's own results: make_divisible (MobileNet
// v2, EfficientNet's round_filters), the flat numbering of per-stage
// blocks (segof, segpos, sum), round_repeats (ceilmul) and Hiera's
// stage widths (mulpow).
func TestExprCNN(t *testing.T) {
	e := &env{vals: map[string]any{"R": []any{int64(1), int64(3), int64(0), int64(2)}, "bad": []any{"x"}}}
	for _, c := range []struct {
		src  string
		want int64
	}{
		{"makediv(32*2000, 1000, 8, 8)", 64}, // round_filters(32), width 2.0
		{"makediv(1280*2000, 1000, 8, 8)", 2560},
		{"makediv(16*1100, 1000, 8, 8)", 16}, // 17.6: 16, not below 15.84
		{"makediv(24*1100, 1000, 8, 8)", 24}, // 26.4: int(30.4)//8*8 = 24, not below 23.76
		{"makediv(40*1100, 1000, 8, 8)", 48}, // 44 → int(48)//8*8 = 48
		{"makediv(19, 1, 8, 8)", 24},         // int(23)//8*8 = 16 < 17.1 → 24
		{"makediv(5, 1, 8, 8)", 8},           // min_value
		{"makediv(5, 1, 8, 0)", 8},           // int(9)//8*8 = 8
		{"makediv(3, 1, 8, 0)", 8},           // int(7)//8*8 = 0 < 2.7 → 8
		{"makediv(22, 1, 3, 8)", 21},         // odd divisor: int(23.5) = 23 → 21
		{"sum(R)", 6},
		{"segof(R, 0)", 0}, {"segpos(R, 0)", 0},
		{"segof(R, 1)", 1}, {"segpos(R, 3)", 2},
		{"segof(R, 4)", 3}, {"segpos(R, 5)", 1},
		{"segof(R, 6)", -1},
		{"at(ceilmul(R, 3100), 1)", 10}, {"at(ceilmul(R, 500), 0)", 1}, {"at(ceilmul(R, 1000), 3)", 2},
		// int(e * m**n), Python's values (Hiera's stage widths)
		{"mulpow(96, 2000, 3)", 768}, {"mulpow(96, 1500, 3)", 324}, {"mulpow(96, 1700, 2)", 277},
		{"mulpow(100, 1100, 1)", 110}, {"mulpow(10, 1100, 2)", 12}, {"mulpow(320, 1300, 3)", 703},
		{"mulpow(48, 1250, 5)", 146}, {"mulpow(1000, 100, 3)", 1}, {"mulpow(96, 2000, 0)", 96},
	} {
		v, err := parseExpr(c.src).eval(e)
		if err != nil || v != c.want {
			t.Errorf("%s = %v, %v; want %d", c.src, v, err, c.want)
		}
	}
	for _, src := range []string{"makediv(1, 0, 8, 8)", "makediv(1, 1, 0, 8)", "sum(bad)", "segof(bad, 0)", "ceilmul(bad, 1000)", "makediv(1, 1, 8)", "mulpow(1, 2000, 65)", "mulpow(1, 2000)", "mulpow(1000000, 100000, 9)"} {
		if _, err := parseExpr(src).eval(e); err == nil {
			t.Errorf("%s: no error", src)
		}
	}
}

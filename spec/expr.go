package spec

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// The families' dimensions, defaults and conditions are small expressions
// over config fields (see ADDING.md):
//
//	H/heads                 integer arithmetic: + - * / %, parentheses
//	l >= k && (l-k)%f == 0  comparisons, && || !, 1 is true and 0 false
//	in(l, mlp_only_layers)  an integer in a list
//	at(layer_types, l)      a list's element ('full_attention' is a string)
//	len(list), max(a, b), min(a, b), c ? a : b
//	count(list, x, n)       entries equal to x among the first n
//	pick(x, l)              x's entry l if x is a list (IntOrList), else x
//	islist(x)               1 if x is a list (IntOrList), 0 if a number
//	sort(l)                 a list of integers ascending
//	list(1, 1, 2)           a list, for a List's default
//	concat(list(E), hs)     lists one after the other
//	log2(n)                 floor(log2(n))
//	sum(l), segof(l, k), segpos(l, k)  a list's sum; the segment of item k when segment i has l[i] items, k's place in it
//	ceilmul(l, m)           each entry times m/1000, rounded up
//	mulpow(x, m, n)         int(x·(m/1000)^n), Python's float arithmetic
//	makediv(num, den, d, m) make_divisible(num/den, d, m) (m: min_value), TensorFlow's channel rounding
//	key(at(list, i), 'name', 32)  a field of an object in a list, or a default
//
// A value is an int64, a string, a list ([]any) or an object of a list
// (map[string]any of int64s and strings). Expressions are parsed
// once, when the families are registered; a malformed one is a
// programming error and panics at init, never on a user's input.

type expr interface {
	eval(env *env) (any, error)
	src() string
}

type (
	numExpr struct {
		v int64
		s string
	}
	strExpr struct{ v string }
	symExpr struct{ name string }
	unExpr  struct {
		op string
		x  expr
	}
	binExpr struct {
		op   string
		a, b expr
	}
	condExpr struct{ c, a, b expr }
	callExpr struct {
		fn   string
		args []expr
	}
)

// env binds symbols to values: the family's definitions, and per layer
// "l" and the layer's kind.
type env struct {
	vals  map[string]any
	layer map[string]any // per-layer bindings, looked up first
	// resolve evaluates a symbol not yet in vals (a definition is read
	// when an expression first needs it); nil: none.
	resolve func(name string) (any, error)
}

func (e *env) get(name string) (any, bool) {
	if v, ok := e.layer[name]; ok {
		return v, true
	}
	v, ok := e.vals[name]
	return v, ok
}

func (e *env) lookup(name string) (any, error) {
	if v, ok := e.get(name); ok {
		return v, nil
	}
	if e.resolve != nil {
		return e.resolve(name)
	}
	return nil, &exprError{"unknown symbol " + name}
}

// exprError is an evaluation failure: a division by zero, an index out of
// range, a type mismatch. It is turned into a ConfigError naming the
// field whose value caused it.
type exprError struct{ msg string }

func (e *exprError) Error() string { return e.msg }

func (x numExpr) eval(*env) (any, error) { return x.v, nil }
func (x numExpr) src() string            { return x.s }
func (x strExpr) eval(*env) (any, error) { return x.v, nil }
func (x strExpr) src() string            { return "'" + x.v + "'" }
func (x symExpr) src() string            { return x.name }
func (x symExpr) eval(e *env) (any, error) {
	return e.lookup(x.name)
}

func (x unExpr) src() string { return x.op + x.x.src() }
func (x unExpr) eval(e *env) (any, error) {
	v, err := evalInt(x.x, e)
	if err != nil {
		return nil, err
	}
	if x.op == "!" {
		return b2i(v == 0), nil
	}
	return -v, nil
}

func (x binExpr) src() string {
	op := x.op
	if op == "*" {
		op = "·"
	}
	if op == "*" || op == "/" || op == "·" {
		return x.a.src() + op + x.b.src()
	}
	return x.a.src() + " " + op + " " + x.b.src()
}

func (x binExpr) eval(e *env) (any, error) {
	switch x.op {
	case "&&", "||":
		a, err := evalInt(x.a, e)
		if err != nil {
			return nil, err
		}
		if (x.op == "&&") == (a == 0) {
			return b2i(a != 0), nil
		}
		b, err := evalInt(x.b, e)
		return b2i(b != 0), err
	case "==", "!=":
		a, err := x.a.eval(e)
		if err != nil {
			return nil, err
		}
		b, err := x.b.eval(e)
		if err != nil {
			return nil, err
		}
		eq := fmt.Sprint(a) == fmt.Sprint(b)
		return b2i(eq == (x.op == "==")), nil
	}
	a, err := evalInt(x.a, e)
	if err != nil {
		return nil, err
	}
	b, err := evalInt(x.b, e)
	if err != nil {
		return nil, err
	}
	switch x.op {
	case "+":
		return a + b, nil
	case "-":
		return a - b, nil
	case "*":
		return a * b, nil
	case "/", "%":
		if b == 0 {
			return nil, &exprError{fmt.Sprintf("%s divides by zero", x.src())}
		}
		if x.op == "/" {
			return a / b, nil
		}
		return a % b, nil
	case "<":
		return b2i(a < b), nil
	case "<=":
		return b2i(a <= b), nil
	case ">":
		return b2i(a > b), nil
	case ">=":
		return b2i(a >= b), nil
	}
	return nil, &exprError{"unknown operator " + x.op}
}

func (x condExpr) src() string { return x.c.src() + " ? " + x.a.src() + " : " + x.b.src() }
func (x condExpr) eval(e *env) (any, error) {
	c, err := evalInt(x.c, e)
	if err != nil {
		return nil, err
	}
	if c != 0 {
		return x.a.eval(e)
	}
	return x.b.eval(e)
}

func (x callExpr) src() string {
	args := make([]string, len(x.args))
	for i, a := range x.args {
		args[i] = a.src()
	}
	return x.fn + "(" + strings.Join(args, ", ") + ")"
}

func (x callExpr) eval(e *env) (any, error) {
	vals := make([]any, len(x.args))
	for i, a := range x.args {
		v, err := a.eval(e)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	list := func(i int) ([]any, error) {
		l, ok := vals[i].([]any)
		if !ok {
			return nil, &exprError{fmt.Sprintf("%s: %s is not a list", x.src(), x.args[i].src())}
		}
		return l, nil
	}
	ints := func() ([]int64, error) {
		out := make([]int64, len(vals))
		for i, v := range vals {
			n, ok := v.(int64)
			if !ok {
				return nil, &exprError{fmt.Sprintf("%s: %s is not an integer", x.src(), x.args[i].src())}
			}
			out[i] = n
		}
		return out, nil
	}
	switch x.fn {
	case "in":
		l, err := list(1)
		if err != nil {
			return nil, err
		}
		for _, v := range l {
			if fmt.Sprint(v) == fmt.Sprint(vals[0]) {
				return int64(1), nil
			}
		}
		return int64(0), nil
	case "at":
		l, err := list(0)
		if err != nil {
			return nil, err
		}
		i, ok := vals[1].(int64)
		if !ok || i < 0 || i >= int64(len(l)) {
			return nil, &exprError{fmt.Sprintf("%s is out of range: the list has %d entries", x.src(), len(l))}
		}
		return l[i], nil
	case "gqa":
		n, err := ints()
		if err != nil {
			return nil, err
		}
		return groupLabel(uint64(n[0]), uint64(n[1])), nil
	case "len":
		l, err := list(0)
		return int64(len(l)), err
	case "log2": // floor(log2(n)), n ≥ 1: Emu3's temporal blocks, log2(temporal_downsample_factor)
		n, err := ints()
		if err != nil {
			return nil, err
		}
		if len(n) != 1 || n[0] < 1 {
			return nil, &exprError{fmt.Sprintf("%s: needs one positive integer", x.src())}
		}
		r := int64(0)
		for v := n[0]; v > 1; v >>= 1 {
			r++
		}
		return r, nil
	case "list": // list(a, b, …): a list literal (a VQ-GAN's default channel_multiplier)
		return vals, nil
	case "concat": // concat(a, b, …): the lists one after the other (a backbone's stem width before its stages', blocks_dense.go)
		var out []any
		for i := range vals {
			l, err := list(i)
			if err != nil {
				return nil, err
			}
			out = append(out, l...)
		}
		return out, nil
	case "sort": // sort(list): the integers ascending (PP-DocLayout v3's mask FPN takes feat_strides sorted)
		l, err := list(0)
		if err != nil {
			return nil, err
		}
		n := make([]int64, len(l))
		for i, v := range l {
			k, ok := v.(int64)
			if !ok {
				return nil, &exprError{fmt.Sprintf("%s: %s is not an integer", x.src(), describe(v))}
			}
			n[i] = k
		}
		slices.Sort(n)
		out := make([]any, len(n))
		for i, k := range n {
			out[i] = k
		}
		return out, nil
	case "islist": // islist(x): 1 if x is a list, 0 if a number (D-FINE's decoder_n_points: per level, or one for all)
		if len(vals) != 1 {
			return nil, &exprError{fmt.Sprintf("%s: needs one value", x.src())}
		}
		_, ok := vals[0].([]any)
		return b2i(ok), nil
	case "pick": // pick(x, l): x's entry l if x is a list, else x (Gemma 3n's per-layer intermediate_size)
		if len(vals) != 2 {
			return nil, &exprError{fmt.Sprintf("%s: needs a value and an index", x.src())}
		}
		if _, ok := vals[0].([]any); !ok {
			return vals[0], nil
		}
		l, _ := list(0)
		i, ok := vals[1].(int64)
		if !ok || i < 0 || i >= int64(len(l)) {
			return nil, &exprError{fmt.Sprintf("%s is out of range: the list has %d entries", x.src(), len(l))}
		}
		return l[i], nil
	case "count": // count(list, x, n): entries equal to x among the first n (Zamba2's hybrid index of layer l)
		l, err := list(0)
		if err != nil {
			return nil, err
		}
		n, ok := vals[len(vals)-1].(int64)
		if len(vals) != 3 || !ok {
			return nil, &exprError{fmt.Sprintf("%s: needs a list, a value and a count", x.src())}
		}
		c := int64(0)
		for i := int64(0); i < n && i < int64(len(l)); i++ {
			if fmt.Sprint(l[i]) == fmt.Sprint(vals[1]) {
				c++
			}
		}
		return c, nil
	case "lexlast": // lexlast(list, x): the index of the entry equal to x whose decimal index sorts last as a string, -1 if none (the copy of Zamba's shared block transformers 4.x keeps)
		l, err := list(0)
		if err != nil {
			return nil, err
		}
		if len(vals) != 2 {
			return nil, &exprError{fmt.Sprintf("%s: needs a list and a value", x.src())}
		}
		best, bestKey := int64(-1), ""
		for i := range l {
			if k := fmt.Sprint(i); fmt.Sprint(l[i]) == fmt.Sprint(vals[1]) && (best < 0 || k > bestKey) {
				best, bestKey = int64(i), k
			}
		}
		return best, nil
	case "isqrt": // floor(√n): Doge's CDMoE has isqrt(num_experts) keys (decoders.go)
		n, err := ints()
		if err != nil {
			return nil, err
		}
		if n[0] < 0 {
			return nil, &exprError{fmt.Sprintf("%s: %d is negative", x.src(), n[0])}
		}
		r := int64(math.Sqrt(float64(n[0])))
		for r*r > n[0] {
			r--
		}
		for (r+1)*(r+1) <= n[0] {
			r++
		}
		return r, nil
	case "pow": // b^x, x ≥ 0: Transformer-XL's d_embed / div_val^i (decoders.go)
		n, err := ints()
		if err != nil {
			return nil, err
		}
		if len(n) != 2 || n[1] < 0 || n[1] > 62 {
			return nil, &exprError{fmt.Sprintf("%s: needs a base and an exponent of 0 to 62", x.src())}
		}
		b, r := n[0], int64(1)
		for range n[1] {
			if b != 0 && (r > (1<<52)/max(b, -b) || r < -(1<<52)/max(b, -b)) {
				return nil, &exprError{fmt.Sprintf("%s overflows", x.src())}
			}
			r *= b
		}
		return r, nil
	case "key": // key(obj, 'name', default): a field of an object in a list (UDOP's relative_bias_args, encdec.go)
		if len(vals) != 3 {
			return nil, &exprError{fmt.Sprintf("%s: needs an object, a key and a default", x.src())}
		}
		m, ok := vals[0].(map[string]any)
		k, isStr := vals[1].(string)
		if !ok || !isStr {
			return nil, &exprError{fmt.Sprintf("%s: %s is not an object", x.src(), x.args[0].src())}
		}
		if v, ok := m[k]; ok {
			return v, nil
		}
		return vals[2], nil
	case "prefix": // prefix(s, 'p'): s starts with p (T5's feed_forward_proj 'gated-…', encdec.go)
		s, ok1 := vals[0].(string)
		p, ok2 := vals[len(vals)-1].(string)
		if len(vals) != 2 || !ok1 || !ok2 {
			return nil, &exprError{fmt.Sprintf("%s: needs two strings", x.src())}
		}
		if strings.HasPrefix(s, p) {
			return int64(1), nil
		}
		return int64(0), nil
	case "makediv": // makediv(num, den, d, min): TensorFlow's make_divisible of num/den (MobileNet, EfficientNet's round_filters; vision_cnn.go)
		n, err := ints()
		if err != nil {
			return nil, err
		}
		if len(n) != 4 || n[1] <= 0 || n[2] <= 0 || n[0] < 0 || n[0] > 1<<40 || n[1] > 1<<20 || n[2] > 1<<20 {
			return nil, &exprError{fmt.Sprintf("%s: needs a value, a positive denominator and divisor, and a minimum", x.src())}
		}
		num, den, d, lo := n[0], n[1], n[2], n[3]
		r := max(lo, (2*num+d*den)/(2*den)/d*d) // int(v + d/2) // d * d
		if 10*r*den < 9*num {                   // never more than 10% below v
			r += d
		}
		return r, nil
	case "sum": // sum(list): the sum of a list of integers (a flat stack of per-stage blocks, vision_cnn.go); sum(list, cap): of each entry capped (timeseries.go's embedding widths, min(50, ·))
		l, err := list(0)
		if err != nil {
			return nil, err
		}
		limit := int64(1 << 32)
		if len(vals) == 2 {
			c, ok := vals[1].(int64)
			if !ok || c < 0 {
				return nil, &exprError{fmt.Sprintf("%s: needs a list and a cap", x.src())}
			}
			limit = min(limit, c)
		}
		t := int64(0)
		for _, v := range l {
			n, ok := v.(int64)
			if !ok || n < 0 || n > 1<<32 {
				return nil, &exprError{fmt.Sprintf("%s: %s is not a count", x.src(), describe(v))}
			}
			t += min(n, limit)
		}
		return t, nil
	case "prod": // prod(list): the product of a list of positive integers (a codec's hop length: its strides' product, blocks_codec.go)
		l, err := list(0)
		if err != nil {
			return nil, err
		}
		t := int64(1)
		for _, v := range l {
			n, ok := v.(int64)
			if !ok || n < 1 || n > 1<<20 || t > 1<<40/n {
				return nil, &exprError{fmt.Sprintf("%s: %s is not a stride fsmount reads", x.src(), describe(v))}
			}
			t *= n
		}
		return t, nil
	case "segof", "segpos": // segof(list, k): the segment holding item k when segment i has list[i] items (-1 past them); segpos: k's index in it
		l, err := list(0)
		if err != nil {
			return nil, err
		}
		k, ok := vals[len(vals)-1].(int64)
		if len(vals) != 2 || !ok {
			return nil, &exprError{fmt.Sprintf("%s: needs a list and an index", x.src())}
		}
		for i, v := range l {
			n, ok := v.(int64)
			if !ok || n < 0 {
				return nil, &exprError{fmt.Sprintf("%s: %s is not a count", x.src(), describe(v))}
			}
			if k < n {
				if x.fn == "segof" {
					return int64(i), nil
				}
				return k, nil
			}
			k -= n
		}
		return int64(-1), nil
	case "ceilmul": // ceilmul(list, m): each entry times m/1000, rounded up (EfficientNet's round_repeats)
		l, err := list(0)
		if err != nil {
			return nil, err
		}
		m, ok := vals[len(vals)-1].(int64)
		if len(vals) != 2 || !ok || m < 0 || m > 1<<20 {
			return nil, &exprError{fmt.Sprintf("%s: needs a list and a multiplier in thousandths", x.src())}
		}
		out := make([]any, len(l))
		for i, v := range l {
			n, ok := v.(int64)
			if !ok || n < 0 || n > 1<<32 {
				return nil, &exprError{fmt.Sprintf("%s: %s is not a count", x.src(), describe(v))}
			}
			out[i] = (n*m + 999) / 1000
		}
		return out, nil
	case "mulpow": // mulpow(x, m, n): int(x·(m/1000)^n) as Python's float arithmetic gives it (Hiera's int(embed_dim·embed_dim_multiplier^i), vision_cnn.go)
		n, err := ints()
		if err != nil {
			return nil, err
		}
		if len(n) != 3 || n[0] < 0 || n[0] > 1<<32 || n[1] < 0 || n[1] > 1<<20 || n[2] < 0 || n[2] > 64 {
			return nil, &exprError{fmt.Sprintf("%s: needs a count, a multiplier in thousandths and an exponent of 0 to 64", x.src())}
		}
		r := float64(n[0]) * math.Pow(float64(n[1])/1000, float64(n[2]))
		if r > 1<<40 {
			return nil, &exprError{fmt.Sprintf("%s overflows", x.src())}
		}
		return int64(r), nil
	case "max", "min":
		n, err := ints()
		if err != nil {
			return nil, err
		}
		if (x.fn == "max") == (n[0] > n[1]) {
			return n[0], nil
		}
		return n[1], nil
	}
	return nil, &exprError{"unknown function " + x.fn}
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func evalInt(x expr, e *env) (int64, error) {
	v, err := x.eval(e)
	if err != nil {
		return 0, err
	}
	n, ok := v.(int64)
	if !ok {
		return 0, &exprError{fmt.Sprintf("%s is %s, not an integer", x.src(), describe(v))}
	}
	return n, nil
}

func describe(v any) string {
	switch v := v.(type) {
	case string:
		return "the string '" + v + "'"
	case []any:
		return fmt.Sprintf("a list of %d", len(v))
	}
	return fmt.Sprint(v)
}

// parseExpr parses an expression; it panics on a malformed one, which
// only a family table can hold.
func parseExpr(s string) expr {
	p := &parser{src: s}
	p.next()
	x := p.cond()
	if p.tok != "" {
		panic(fmt.Sprintf("spec: expression %q: unexpected %q", s, p.tok))
	}
	return x
}

type parser struct {
	src string
	pos int
	tok string
}

func (p *parser) next() {
	for p.pos < len(p.src) && p.src[p.pos] == ' ' {
		p.pos++
	}
	if p.pos >= len(p.src) {
		p.tok = ""
		return
	}
	start := p.pos
	c := p.src[p.pos]
	switch {
	case isIdent(c) || c >= '0' && c <= '9':
		for p.pos < len(p.src) && (isIdent(p.src[p.pos]) || p.src[p.pos] >= '0' && p.src[p.pos] <= '9') {
			p.pos++
		}
	case c == '\'':
		end := strings.IndexByte(p.src[p.pos+1:], '\'')
		if end < 0 {
			panic(fmt.Sprintf("spec: expression %q: unterminated string", p.src))
		}
		p.pos += end + 2
	default:
		p.pos++
		if p.pos < len(p.src) {
			if two := p.src[start : p.pos+1]; two == "&&" || two == "||" || two == "==" || two == "!=" || two == "<=" || two == ">=" {
				p.pos++
			}
		}
	}
	p.tok = p.src[start:p.pos]
}

func isIdent(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

var precedence = map[string]int{"||": 1, "&&": 2, "==": 3, "!=": 3, "<": 4, "<=": 4, ">": 4, ">=": 4, "+": 5, "-": 5, "*": 6, "/": 6, "%": 6}

func (p *parser) cond() expr {
	c := p.binary(1)
	if p.tok != "?" {
		return c
	}
	p.next()
	a := p.cond()
	p.expect(":")
	return condExpr{c, a, p.cond()}
}

func (p *parser) binary(min int) expr {
	x := p.unary()
	for {
		prec, ok := precedence[p.tok]
		if !ok || prec < min {
			return x
		}
		op := p.tok
		p.next()
		x = binExpr{op, x, p.binary(prec + 1)}
	}
}

func (p *parser) unary() expr {
	if p.tok == "!" || p.tok == "-" {
		op := p.tok
		p.next()
		return unExpr{op, p.unary()}
	}
	return p.primary()
}

func (p *parser) expect(tok string) {
	if p.tok != tok {
		panic(fmt.Sprintf("spec: expression %q: expected %q, found %q", p.src, tok, p.tok))
	}
	p.next()
}

func (p *parser) primary() expr {
	t := p.tok
	switch {
	case t == "(":
		p.next()
		x := p.cond()
		p.expect(")")
		return x
	case t != "" && t[0] >= '0' && t[0] <= '9':
		v, err := strconv.ParseInt(t, 10, 64)
		if err != nil {
			panic(fmt.Sprintf("spec: expression %q: %v", p.src, err))
		}
		p.next()
		return numExpr{v, t}
	case t != "" && t[0] == '\'':
		p.next()
		return strExpr{t[1 : len(t)-1]}
	case t != "" && isIdent(t[0]):
		p.next()
		if p.tok != "(" {
			return symExpr{t}
		}
		p.next()
		var args []expr
		for p.tok != ")" {
			args = append(args, p.cond())
			if p.tok == "," {
				p.next()
			} else if p.tok != ")" {
				panic(fmt.Sprintf("spec: expression %q: expected , or ) in a call", p.src))
			}
		}
		p.next()
		return callExpr{t, args}
	}
	panic(fmt.Sprintf("spec: expression %q: unexpected %q", p.src, t))
}

// syms returns the symbols an expression names, for the registry's
// consistency check.
func syms(x expr, out map[string]bool) {
	switch x := x.(type) {
	case symExpr:
		out[x.name] = true
	case unExpr:
		syms(x.x, out)
	case binExpr:
		syms(x.a, out)
		syms(x.b, out)
	case condExpr:
		syms(x.c, out)
		syms(x.a, out)
		syms(x.b, out)
	case callExpr:
		for _, a := range x.args {
			syms(a, out)
		}
	}
}

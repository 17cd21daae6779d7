// Package numfmt writes numbers for people: the one thousands-separator
// formatter of the report, the errors and the pages.
package numfmt

import "strconv"

// Commas writes n with thousands separators: 751632384 as
// "751,632,384", -1234 as "-1,234".
func Commas[T ~int | ~int64 | ~uint64 | ~uint32 | ~int32](n T) string {
	var d string
	if n < 0 {
		d = strconv.FormatInt(int64(n), 10)
	} else {
		d = strconv.FormatUint(uint64(n), 10)
	}
	digits := d
	sign := ""
	if d[0] == '-' {
		sign, digits = "-", d[1:]
	}
	b := make([]byte, 0, len(d)+len(d)/3)
	b = append(b, sign...)
	for i := range len(digits) {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, digits[i])
	}
	return string(b)
}

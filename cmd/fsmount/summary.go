package main

import (
	"fmt"
	"strconv"

	"github.com/fsmount/fsmount/check"
)

// summary is the line fsmount prints once the mount is ready:
//
//	mounted /mnt/q: ✓ 311 tensors, 596M params — cat /mnt/q/verdict
//	mounted /mnt/q: ✗ 2 problems, 25 tensors, 28.9K params — cat /mnt/q/verdict
//	mounted /mnt/q: – structural check only, 25 tensors, 33K params — cat /mnt/q/verdict
//	mounted /mnt/q: – not checked, 25 tensors, 33K params — cat /mnt/q/verdict
func summary(mnt string, r *check.Report) string {
	var verdict string
	switch n := len(r.Problems); {
	case n > 0:
		verdict = fmt.Sprintf("✗ %d %s, ", n, map[bool]string{true: "problem", false: "problems"}[n == 1])
	case r.Depth == check.DepthStructural:
		verdict = "– structural check only, "
	case r.Plan == nil:
		verdict = "– not checked, "
	default:
		verdict = "✓ "
	}
	return fmt.Sprintf("mounted %s: %s%d tensors, %s params — cat %s/verdict", mnt, verdict, len(r.Model.Tensors()), shortCount(r.Logical), mnt)
}

// shortCount renders a count in three significant digits: 596M, 28.9K,
// 1.5B, 311.
func shortCount(n uint64) string {
	units := []string{"", "K", "M", "B", "T"}
	v, u := float64(n), 0
	for u < len(units)-1 && v >= 999.5 {
		v /= 1000
		u++
	}
	if u == 0 {
		return strconv.FormatUint(n, 10)
	}
	return strconv.FormatFloat(v, 'g', 3, 64) + units[u]
}

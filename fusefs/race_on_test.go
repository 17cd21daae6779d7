//go:build race

package fusefs

// raceBuild: the race detector makes sync.Pool drop what it holds and
// adds allocations of its own, so allocation bounds get more room.
const raceBuild = true

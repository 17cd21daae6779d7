//go:build !race

package remote

// raceBuild is true in race-detector builds, whose detector does not see
// memory outside the Go heap.
const raceBuild = false

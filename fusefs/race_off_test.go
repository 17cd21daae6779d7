//go:build !race

package fusefs

// raceBuild: see race_on_test.go.
const raceBuild = false

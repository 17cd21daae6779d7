//go:build race

package main

// raceBuild: the race detector maps shadow memory for what the heap
// touches, in 4 KB pages of its own, so page faults say nothing there.
const raceBuild = true

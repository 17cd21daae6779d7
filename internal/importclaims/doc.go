// Package importclaims holds no code: its test checks what
// ARCHITECTURE.md claims about who imports whom, with go list, so that
// the claims stay true.
package importclaims

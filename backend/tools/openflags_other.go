//go:build !unix

package tools

// openNonBlock has no equivalent here.
const openNonBlock = 0

//go:build unix

package tools

import "syscall"

// openNonBlock keeps opening a FIFO from blocking (reads of regular files are unaffected).
const openNonBlock = syscall.O_NONBLOCK

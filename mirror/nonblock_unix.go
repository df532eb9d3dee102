//go:build unix

package mirror

import "syscall"

// nonBlock opens a file without waiting on a FIFO.
const nonBlock = syscall.O_NONBLOCK

//go:build !unix

package mirror

// nonBlock is nothing here: there are no FIFOs to wait on.
const nonBlock = 0

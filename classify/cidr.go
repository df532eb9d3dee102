package classify

import "net/netip"

// inPrefixes reports whether ip is an address inside one of prefixes.
func inPrefixes(ip []byte, prefixes []netip.Prefix) bool {
	addr, err := netip.ParseAddr(string(ip))
	if err != nil {
		return false
	}
	addr = addr.Unmap()
	for _, p := range prefixes {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

-- A job's network stack (ipv4, ipv6, dual), from its name as Sippy's
-- NetworkStack variant derives it (-ipv6, -dualstack), is a variant: an
-- IPv6 metal upgrade job is compared with the IPv6 jobs of the release
-- before, never with the IPv4 ones. The Go step of this migration derives
-- it for the stored jobs and keys their runs' variants again (an IPv4
-- variant's key is unchanged: the stack is said only when it is not IPv4).
ALTER TABLE jobs ADD COLUMN network_stack TEXT;

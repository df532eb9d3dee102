package prow

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"slices"
	"strings"
)

// Networks are a cluster's own address ranges, from its
// network.config.openshift.io resource: the pod networks (clusterNetwork)
// and the service networks, IPv4 and IPv6 alike (a dual-stack cluster has
// one of each family).
type Networks struct {
	Cluster, Service []netip.Prefix
}

// Stack is the networks' IP family: "ipv4", "ipv6" or "dual" (Sippy's
// NetworkStack); "" when the cluster network is unknown.
func (n Networks) Stack() string {
	v4, v6 := false, false
	for _, p := range n.Cluster {
		v4, v6 = v4 || p.Addr().Is4(), v6 || p.Addr().Is6()
	}
	switch {
	case v4 && v6:
		return StackDual
	case v6:
		return StackIPv6
	case v4:
		return StackIPv4
	}
	return ""
}

// networkItem is the part of a config resource that says where its
// networks are. gather-extra writes config-resources.json with `oc get
// apiserver.config.openshift.io ... network.config.openshift.io ... -o
// json`: a List of every config resource, of which one is the Network.
type networkItem struct {
	APIVersion string          `json:"apiVersion"`
	Kind       string          `json:"kind"`
	Items      json.RawMessage `json:"items"`
	Spec       networkSpec     `json:"spec"`
	Status     networkSpec     `json:"status"`
}

type networkSpec struct {
	ClusterNetwork []struct {
		CIDR string `json:"cidr"`
	} `json:"clusterNetwork"`
	ServiceNetwork []string `json:"serviceNetwork"`
}

// ParseNetworks reads the cluster's networks from config-resources.json (a
// List of config resources) or from a network.config.openshift.io resource
// alone. The status, what the cluster runs with, is preferred to the spec.
// A file without a Network resource says nothing: zero Networks, no error.
// A network that is not a CIDR is an error.
func ParseNetworks(b []byte) (Networks, error) {
	var top networkItem
	if err := decodeObject(b, &top); err != nil {
		return Networks{}, fmt.Errorf("parse config resources: %w", err)
	}
	items := []networkItem{top}
	if top.Kind == "List" || len(top.Items) > 0 {
		var raw []json.RawMessage
		if err := json.Unmarshal(top.Items, &raw); err != nil {
			return Networks{}, fmt.Errorf("parse config resources: items: %w", err)
		}
		items = items[:0]
		for _, r := range raw {
			var it networkItem
			if json.Unmarshal(r, &it) == nil {
				items = append(items, it)
			}
		}
	}
	for _, it := range items {
		if it.Kind != "Network" || !strings.HasPrefix(it.APIVersion, "config.openshift.io/") {
			continue
		}
		spec := it.Status
		if len(spec.ClusterNetwork) == 0 {
			spec = it.Spec
		}
		var n Networks
		for _, c := range spec.ClusterNetwork {
			p, err := parseNetwork(c.CIDR)
			if err != nil {
				return Networks{}, fmt.Errorf("parse config resources: clusterNetwork: %w", err)
			}
			n.Cluster = append(n.Cluster, p)
		}
		for _, s := range spec.ServiceNetwork {
			p, err := parseNetwork(s)
			if err != nil {
				return Networks{}, fmt.Errorf("parse config resources: serviceNetwork: %w", err)
			}
			n.Service = append(n.Service, p)
		}
		n.Cluster, n.Service = slices.Compact(n.Cluster), slices.Compact(n.Service)
		return n, nil
	}
	return Networks{}, nil
}

// parseNetwork reads a CIDR as a masked prefix.
func parseNetwork(s string) (netip.Prefix, error) {
	p, err := netip.ParsePrefix(strings.TrimSpace(s))
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("%q is not a network", truncateUTF8(s, 64, "..."))
	}
	return p.Masked(), nil
}

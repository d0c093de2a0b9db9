package podrules

import caldera "github.com/caldera-scheduler/caldera/guest-sdk/go"

// keyDomains numbers the values of one topology key on the session's
// nodes: of[node] is the number of the node's value, -1 when it lacks the
// key. The filters count per domain number and find a node's domain by
// its handle, with no map lookup per node: in TinyGo every lookup by a
// string or struct key allocates.
type keyDomains struct {
	of []int32
	n  int
	// names[id] is the value numbered id: domain rules name domains by
	// value.
	names []string
	// onePerNode says no two nodes share a value: a domain is a node.
	onePerNode bool
}

// domainsOf numbers the values of key, once per session.
func (idx *Index) domainsOf(key string) *keyDomains {
	if kd, ok := idx.domains[key]; ok {
		return kd
	}
	kd := &keyDomains{of: make([]int32, len(idx.nodes))}
	ids := map[string]int32{}
	carrying := 0
	for i := range idx.nodes {
		v, ok := caldera.Label(idx.nodes[i].Labels, key)
		if !ok {
			kd.of[i] = -1
			continue
		}
		carrying++
		id, seen := ids[v]
		if !seen {
			id = int32(len(ids))
			ids[v] = id
			kd.names = append(kd.names, v)
		}
		kd.of[i] = id
	}
	kd.n = len(ids)
	kd.onePerNode = kd.n == carrying
	idx.domains[key] = kd
	return kd
}

// domainTally counts pods per topology domain, key by key.
type domainTally struct {
	idx  *Index
	keys []keyTally
	// nonzero is how many domains, over all keys, hold a count.
	nonzero int
}

type keyTally struct {
	key   string
	of    []int32  // node handle -> domain number, -1 without the key
	names []string // domain number -> value
	// counts holds a key of few domains (zones) densely; sparse one of
	// many (hostnames), of which a state counts pods in a handful: a dense
	// tally per template of a 5,000-node session's hostnames would hold
	// megabytes of zeros in a 64 MiB guest. Integer keys hash without
	// allocating in TinyGo.
	counts  []int32
	sparse  map[int32]int32
	nonzero int
}

// denseDomains is the most domains a key's tally holds densely.
const denseDomains = 64

func (kt *keyTally) get(id int32) int32 {
	if kt.counts != nil {
		return kt.counts[id]
	}
	return kt.sparse[id]
}

// forKey returns the tally of key, made on first use; a state has a few
// keys, so a slice beats a map.
func (t *domainTally) forKey(key string) *keyTally {
	for i := range t.keys {
		if t.keys[i].key == key {
			return &t.keys[i]
		}
	}
	kd := t.idx.domainsOf(key)
	kt := keyTally{key: key, of: kd.of, names: kd.names}
	if kd.n <= denseDomains {
		kt.counts = make([]int32, kd.n)
	} else {
		kt.sparse = map[int32]int32{}
	}
	t.keys = append(t.keys, kt)
	return &t.keys[len(t.keys)-1]
}

// update adds d to the node's domain of key; a node without the key has
// no domain and counts nothing.
func (t *domainTally) update(node int32, key string, d int64) {
	kt := t.forKey(key)
	id := kt.of[node]
	if id < 0 {
		return
	}
	before := kt.get(id)
	after := before + int32(d)
	switch {
	case kt.counts != nil:
		kt.counts[id] = after
	case after == 0:
		delete(kt.sparse, id)
	default:
		kt.sparse[id] = after
	}
	switch {
	case before == 0 && after != 0:
		kt.nonzero++
		t.nonzero++
	case before != 0 && after == 0:
		kt.nonzero--
		t.nonzero--
	}
}

// at returns the count of the node's domain of key: 0 when the node lacks
// the key or nothing was counted for key.
func (t *domainTally) at(node int32, key string) int32 {
	for i := range t.keys {
		if kt := &t.keys[i]; kt.key == key {
			if id := kt.of[node]; id >= 0 {
				return kt.get(id)
			}
			return 0
		}
	}
	return 0
}

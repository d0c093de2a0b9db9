//go:build tinygo

package caldera

// labelScanMax is the largest map Label scans instead of hashing.
const labelScanMax = 16

// Label returns the value of key in a label map (a pod's, a node's, a
// namespace's), as labels[key] does. TinyGo's map lookup by a string key
// allocates (its runtime takes the key's address, which escapes): a label
// selector matched against thousands of pods a session left that many
// objects for the collector, each collection marking the whole view. A
// small map is scanned instead, which allocates nothing.
func Label(labels map[string]string, key string) (string, bool) {
	if len(labels) > labelScanMax {
		v, ok := labels[key]
		return v, ok
	}
	for k, v := range labels {
		if k == key {
			return v, true
		}
	}
	return "", false
}

//go:build !tinygo

package caldera

// Label returns the value of key in a label map (a pod's, a node's, a
// namespace's), as labels[key] does. Use it on a hot path of a plugin that
// may be built with TinyGo, where the plain lookup allocates.
func Label(labels map[string]string, key string) (string, bool) {
	v, ok := labels[key]
	return v, ok
}

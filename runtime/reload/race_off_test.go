//go:build !race

package reload

const raceDetector = false

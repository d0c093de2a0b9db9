//go:build race

package reload

// raceDetector is set when the race detector runs: its shadow memory grows
// with the program's and is not returned, so RSS says nothing of leaks.
const raceDetector = true

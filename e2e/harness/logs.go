package harness

import (
	"os"
	"strings"
)

// tail returns the last n lines of a file, or why it cannot.
func tail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return "(" + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{"..."}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}

// grep counts the lines of a file containing substr and returns the first.
func grep(path, substr string) (int, string) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, ""
	}
	n, first := 0, ""
	for _, line := range strings.Split(string(data), "\n") {
		if strings.Contains(line, substr) {
			if n == 0 {
				first = line
			}
			n++
		}
	}
	return n, first
}

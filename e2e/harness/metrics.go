package harness

import (
	"bufio"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ReadMetrics reads a Prometheus text page (a scheduler's /metrics) into a
// map from series, name and labels as printed, to value. vc-scheduler keeps
// series per job: after 10,000 plain pods its page takes seconds to write,
// so the caller gives the time it may take.
func ReadMetrics(url string, timeout time.Duration) (map[string]float64, error) {
	resp, err := (&http.Client{Timeout: timeout}).Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		i := strings.LastIndexByte(line, ' ')
		if strings.HasPrefix(line, "#") || i < 0 {
			continue
		}
		if v, err := strconv.ParseFloat(line[i+1:], 64); err == nil {
			out[line[:i]] = v
		}
	}
	return out, sc.Err()
}

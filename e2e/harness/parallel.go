package harness

import "sync"

// Parallel calls f(i) for every i in [0, n) on at most workers goroutines
// and returns the error of the lowest i that failed, or nil. Every call is
// made even after a failure: callers use it for creating and deleting many
// objects, where doing the rest is more useful than stopping early.
func Parallel(n, workers int, f func(i int) error) error {
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				errs[i] = f(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

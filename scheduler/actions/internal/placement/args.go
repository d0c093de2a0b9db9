package placement

import (
	"github.com/caldera-scheduler/caldera/scheduler/actions/internal/shared"
	"github.com/caldera-scheduler/caldera/scheduler/framework"
)

// Argument names shared by the actions that search nodes.
const (
	// ErrorCacheKey turns the per-role predicate error cache on or off
	// (Volcano's predicateErrorCacheEnable, default true).
	ErrorCacheKey = "predicateErrorCacheEnable"
	// MinNodesToFindKey: clusters this small are searched in full, and no
	// search stops with fewer feasible nodes (Volcano's
	// --minimum-feasible-nodes, default 100).
	MinNodesToFindKey = "minNodesToFind"
	// MinPercentageOfNodesToFindKey is the floor of the adaptive percentage
	// (Volcano's --minimum-percentage-nodes-to-find, default 5).
	MinPercentageOfNodesToFindKey = "minPercentageOfNodesToFind"
	// PercentageOfNodesToFindKey fixes the percentage; 0 or less means
	// adaptive, 100 means every node (Volcano's --percentage-nodes-to-find,
	// default 0).
	PercentageOfNodesToFindKey = "percentageOfNodesToFind"
)

// SearchKeys lists the argument names SearchArgs reads.
var SearchKeys = []string{ErrorCacheKey, MinNodesToFindKey, MinPercentageOfNodesToFindKey, PercentageOfNodesToFindKey}

// SearchArgs configures a feasible-node search.
type SearchArgs struct {
	ErrorCache                 bool
	MinNodesToFind             int
	MinPercentageOfNodesToFind int
	PercentageOfNodesToFind    int
}

// DefaultSearchArgs returns Volcano's defaults.
func DefaultSearchArgs() SearchArgs { return defaultsOf(shared.DefaultNodeSearch()) }

func defaultsOf(d shared.NodeSearch) SearchArgs {
	return SearchArgs{ErrorCache: true, MinNodesToFind: d.MinNodesToFind,
		MinPercentageOfNodesToFind: d.MinPercentageOfNodesToFind, PercentageOfNodesToFind: d.PercentageOfNodesToFind}
}

// ReadOnlySearchArgs reads the arguments of an action that takes the search
// arguments and nothing else: any other key is an error naming it.
func ReadOnlySearchArgs(args framework.Arguments, d shared.NodeSearch) (SearchArgs, error) {
	if err := args.RejectUnknown(SearchKeys...); err != nil {
		return SearchArgs{}, err
	}
	return ReadSearchArgs(args, d)
}

// ReadSearchArgs reads the search arguments over the scheduler's node
// search d (Volcano's defaults unless its flags said otherwise).
func ReadSearchArgs(args framework.Arguments, d shared.NodeSearch) (SearchArgs, error) {
	s := defaultsOf(d)
	for _, err := range []error{
		args.Bool(ErrorCacheKey, &s.ErrorCache),
		args.Int(MinNodesToFindKey, &s.MinNodesToFind),
		args.Int(MinPercentageOfNodesToFindKey, &s.MinPercentageOfNodesToFind),
		args.Int(PercentageOfNodesToFindKey, &s.PercentageOfNodesToFind),
	} {
		if err != nil {
			return s, err
		}
	}
	return s, nil
}

// baselinePercentage is where the adaptive percentage starts before it
// shrinks by one point per 125 nodes.
const baselinePercentage = 50

// NumToFind is how many feasible nodes a search collects among n nodes.
func (s SearchArgs) NumToFind(n int) int {
	if n <= s.MinNodesToFind || s.PercentageOfNodesToFind >= 100 {
		return n
	}
	pct := s.PercentageOfNodesToFind
	if pct <= 0 {
		pct = baselinePercentage - n/125
		if pct < s.MinPercentageOfNodesToFind {
			pct = s.MinPercentageOfNodesToFind
		}
	}
	k := n * pct / 100
	if k < s.MinNodesToFind {
		k = s.MinNodesToFind
	}
	return k
}

// Package scenario reads scenario folders — a cluster, a scheduler
// configuration and what a run of it must show — and compares a
// simulation's result with them. `caldera plugin test` and the repository's
// acceptance test run folders through it, so a policy author's scenarios
// and the project's are checked alike.
//
// A folder holds cluster.yaml (manifests, as `caldera simulate --cluster`
// reads them), expect.yaml, and optionally scheduler.yaml (without it,
// Volcano's default configuration).
package scenario

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/caldera-scheduler/caldera/internal/configfile"
	"github.com/caldera-scheduler/caldera/internal/regularfile"
	"github.com/caldera-scheduler/caldera/scheduler/simulator"
)

// The files of a folder.
const (
	ClusterFile   = "cluster.yaml"
	SchedulerFile = "scheduler.yaml"
	ExpectFile    = "expect.yaml"
)

// Expectation is a folder's expect.yaml. A key left out is not checked.
type Expectation struct {
	// Sessions is how many scheduling sessions run (default 1); between
	// them bound pods start running and evicted pods are gone.
	Sessions int `json:"sessions,omitempty"`
	// Binds maps every pod bound by the run to its node: exactly these.
	Binds *map[string]string `json:"binds,omitempty"`
	// BindCount is how many pods the run binds.
	BindCount *int `json:"bindCount,omitempty"`
	// Evictions are the pods evicted: exactly these, in any order.
	Evictions *[]string `json:"evictions,omitempty"`
	// EvictCount is how many pods the run evicts.
	EvictCount *int `json:"evictCount,omitempty"`
	// PodGroupPhases maps PodGroups to their phase after the run.
	PodGroupPhases map[string]string `json:"podGroupPhases,omitempty"`
	// Unschedulable maps a pod that must stay pending to a text its
	// unschedulable reason must contain.
	Unschedulable map[string]string `json:"unschedulable,omitempty"`
	// Nominated is the exact set of unbound pods with a nominated node.
	Nominated *map[string]string `json:"nominated,omitempty"`
	// HyperNodes maps PodGroups to the hypernode they were placed in.
	HyperNodes map[string]string `json:"hyperNodes,omitempty"`
	// BindAnnotations maps a pod to annotations it must have been given at
	// its bind; a value of "*" asks only that the annotation is there (a
	// time stamp). Annotations not listed are not checked.
	BindAnnotations map[string]map[string]string `json:"bindAnnotations,omitempty"`
	// Volumes is the exact set of claims the run bound ("namespace/name")
	// and their volumes; "*" accepts any volume (a provisioned one).
	Volumes *map[string]string `json:"volumes,omitempty"`
	// Claims is the exact set of ResourceClaims the run allocated or
	// reserved ("namespace/name") and their devices ("driver/pool/device",
	// in allocation order).
	Claims *map[string][]string `json:"claims,omitempty"`
	// Source says where the case comes from (a test and its case name);
	// it is shown beside failures.
	Source string `json:"source,omitempty"`
}

// Folder is one scenario folder, read.
type Folder struct {
	Dir string
	// SchedulerConf is the path of scheduler.yaml, or "" when the folder
	// has none.
	SchedulerConf string
	Expect        Expectation
}

// Cluster is the path of the folder's cluster.yaml.
func (f *Folder) Cluster() string { return filepath.Join(f.Dir, ClusterFile) }

// Find lists the scenario folders under each root: the root itself when
// it holds a cluster.yaml, else every folder below it that does, sorted.
func Find(roots ...string) ([]string, error) {
	var dirs []string
	for _, root := range roots {
		info, err := os.Stat(root)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			return nil, fmt.Errorf("%s: not a folder (a scenario is a folder holding %s and %s)", root, ClusterFile, ExpectFile)
		}
		var found []string
		err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && d.Name() == ClusterFile {
				found = append(found, filepath.Dir(path))
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s: no scenario folder (one holding %s) in it", root, ClusterFile)
		}
		dirs = append(dirs, found...)
	}
	sort.Strings(dirs)
	return slices.Compact(dirs), nil
}

// Read reads a folder's expect.yaml and notes its scheduler.yaml. The
// expectation is read by the rules of every configuration file: an
// unknown key (a misspelt check that would never fail) is an error.
func Read(dir string) (*Folder, error) {
	f := &Folder{Dir: dir}
	path := filepath.Join(dir, ExpectFile)
	data, err := regularfile.Read(path, regularfile.MaxConfig)
	if err != nil {
		return nil, err
	}
	doc, err := configfile.Document(data, path)
	if err != nil {
		return nil, err
	}
	raw, err := configfile.JSON(doc, path)
	if err != nil {
		return nil, err
	}
	if _, err := configfile.Section(raw, &f.Expect); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if f.Expect.Sessions < 0 {
		return nil, fmt.Errorf("%s: sessions: expected a positive number, got %d", path, f.Expect.Sessions)
	}
	if f.Expect.Sessions == 0 {
		f.Expect.Sessions = 1
	}
	if _, err := os.Stat(filepath.Join(dir, SchedulerFile)); err == nil {
		f.SchedulerConf = filepath.Join(dir, SchedulerFile)
	}
	return f, nil
}

// Check compares a run's result with the expectation and returns what
// differs, one line each; none when the run shows what was expected.
func (e *Expectation) Check(got *simulator.Result) []string {
	var diffs []string
	add := func(format string, args ...any) { diffs = append(diffs, fmt.Sprintf(format, args...)) }
	if e.Binds != nil {
		for _, pod := range unionKeys(*e.Binds, got.Binds) {
			want, has := (*e.Binds)[pod]
			node, bound := got.Binds[pod]
			switch {
			case !bound:
				add("binds: %s: not bound, want it on %s", pod, want)
			case !has:
				add("binds: %s: bound to %s, want it not bound", pod, node)
			case node != want:
				add("binds: %s: bound to %s, want %s", pod, node, want)
			}
		}
	}
	if e.BindCount != nil && len(got.Binds) != *e.BindCount {
		add("bindCount: %d pods bound, want %d", len(got.Binds), *e.BindCount)
	}
	if e.Evictions != nil {
		want := map[string]bool{}
		for _, p := range *e.Evictions {
			want[p] = true
		}
		evicted := map[string]bool{}
		for _, p := range got.Evictions {
			evicted[p] = true
			if !want[p] {
				add("evictions: %s: evicted, want it kept", p)
			}
		}
		for _, p := range slices.Sorted(maps.Keys(want)) {
			if !evicted[p] {
				add("evictions: %s: kept, want it evicted", p)
			}
		}
	}
	if e.EvictCount != nil && len(got.Evictions) != *e.EvictCount {
		add("evictCount: %d pods evicted, want %d", len(got.Evictions), *e.EvictCount)
	}
	for _, pod := range slices.Sorted(maps.Keys(e.Unschedulable)) {
		text := e.Unschedulable[pod]
		reason, pending := got.Unschedulable[pod]
		switch {
		case !pending && got.Binds[pod] != "":
			add("unschedulable: %s: bound to %s, want it pending with a reason containing %q", pod, got.Binds[pod], text)
		case !pending:
			add("unschedulable: %s: no unschedulable reason, want one containing %q", pod, text)
		case !strings.Contains(reason, text):
			add("unschedulable: %s: reason %q, want it to contain %q", pod, strings.TrimSpace(reason), text)
		}
	}
	if e.Nominated != nil {
		for _, pod := range unionKeys(*e.Nominated, got.Nominated) {
			want, has := (*e.Nominated)[pod]
			node, nominated := got.Nominated[pod]
			switch {
			case !nominated:
				add("nominated: %s: no nominated node, want %s", pod, want)
			case !has:
				add("nominated: %s: nominated to %s, want none", pod, node)
			case node != want:
				add("nominated: %s: nominated to %s, want %s", pod, node, want)
			}
		}
	}
	for _, pg := range slices.Sorted(maps.Keys(e.HyperNodes)) {
		if want, got := e.HyperNodes[pg], got.HyperNodes[pg]; got != want {
			add("hyperNodes: %s: placed in %q, want %q", pg, got, want)
		}
	}
	for _, pod := range slices.Sorted(maps.Keys(e.BindAnnotations)) {
		written := got.BindAnnotations[pod]
		for _, key := range slices.Sorted(maps.Keys(e.BindAnnotations[pod])) {
			want := e.BindAnnotations[pod][key]
			v, ok := written[key]
			switch {
			case !ok:
				add("bindAnnotations: %s: %s not written at bind, want %q", pod, key, want)
			case want != "*" && v != want:
				add("bindAnnotations: %s: %s=%q, want %q", pod, key, v, want)
			}
		}
	}
	if e.Volumes != nil {
		for _, claim := range slices.Sorted(maps.Keys(*e.Volumes)) {
			want := (*e.Volumes)[claim]
			v, ok := got.Volumes[claim]
			switch {
			case !ok:
				add("volumes: %s: not bound by the run, want %q", claim, want)
			case want != "*" && v != want:
				add("volumes: %s: bound to %q, want %q", claim, v, want)
			}
		}
		for _, claim := range slices.Sorted(maps.Keys(got.Volumes)) {
			if _, listed := (*e.Volumes)[claim]; !listed {
				add("volumes: %s: bound to %q, want not bound", claim, got.Volumes[claim])
			}
		}
	}
	if e.Claims != nil {
		for _, claim := range slices.Sorted(maps.Keys(*e.Claims)) {
			want := (*e.Claims)[claim]
			v, ok := got.Claims[claim]
			switch {
			case !ok:
				add("claims: %s: not written by the run, want %q", claim, want)
			case !slices.Equal(v, want):
				add("claims: %s: devices %q, want %q", claim, v, want)
			}
		}
		for _, claim := range slices.Sorted(maps.Keys(got.Claims)) {
			if _, listed := (*e.Claims)[claim]; !listed {
				add("claims: %s: written with devices %q, want not written", claim, got.Claims[claim])
			}
		}
	}
	for _, pg := range slices.Sorted(maps.Keys(e.PodGroupPhases)) {
		want := e.PodGroupPhases[pg]
		st, ok := got.PodGroups[pg]
		switch {
		case !ok:
			add("podGroupPhases: %s: no such PodGroup in the result, want phase %s", pg, want)
		case st.Phase != want:
			add("podGroupPhases: %s: %s, want %s", pg, st.Phase, want)
		}
	}
	return diffs
}

func unionKeys(a, b map[string]string) []string {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	return slices.Sorted(maps.Keys(keys))
}

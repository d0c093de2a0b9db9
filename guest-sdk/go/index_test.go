package caldera

import (
	"slices"
	"testing"
)

// jobTasks lists each job's tasks by name.
func jobTasks(v *View) [][]string {
	out := make([][]string, len(v.Jobs))
	for i := range v.Jobs {
		for _, t := range v.Jobs[i].Tasks {
			out[i] = append(out[i], t.Name)
		}
	}
	return out
}

func TestIndexListsEachJobsTasksAcrossSessions(t *testing.T) {
	var lists taskLists
	first := &Session{View: View{
		Jobs: make([]Job, 3),
		Tasks: []Task{
			{Name: "b0", Job: 1}, {Name: "a0", Job: 0}, {Name: "b1", Job: 1},
			{Name: "orphan", Job: -1}, {Name: "c0", Job: 2}, {Name: "a1", Job: 0},
		},
	}}
	first.index(&lists)
	want := [][]string{{"a0", "a1"}, {"b0", "b1"}, {"c0"}}
	if got := jobTasks(&first.View); !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("first session: jobs' tasks %v, want %v", got, want)
	}
	// A plugin's append must not run into the next job's tasks.
	v := &first.View
	v.Jobs[0].Tasks = append(v.Jobs[0].Tasks, &v.Tasks[3])
	if got := v.Jobs[1].Tasks[0].Name; got != "b0" {
		t.Fatalf("appending to job 0's tasks overwrote job 1's first task with %s", got)
	}

	// The next session, indexed into the same arrays, has fewer jobs and
	// fewer tasks, grouped differently.
	array := &lists.tasks[0]
	next := &Session{View: View{
		Jobs:  make([]Job, 2),
		Tasks: []Task{{Name: "y0", Job: 1}, {Name: "x0", Job: 0}, {Name: "y1", Job: 1}, {Name: "y2", Job: 1}, {Name: "x1", Job: 0}},
	}}
	next.index(&lists)
	if &lists.tasks[0] != array {
		t.Fatal("the next session's index did not reuse the task array")
	}
	if stale := lists.tasks[:cap(lists.tasks)][5]; stale != nil {
		t.Errorf("the array still holds the previous session's task %s beyond the new length", stale.Name)
	}
	want = [][]string{{"x0", "x1"}, {"y0", "y1", "y2"}}
	if got := jobTasks(&next.View); !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("next session: jobs' tasks %v, want %v", got, want)
	}
	for i, tk := range next.View.Tasks {
		if tk.Handle != int32(i) {
			t.Fatalf("task %s has handle %d, want %d", tk.Name, tk.Handle, i)
		}
	}
}

func TestSameBytes(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{{"", "", true}, {"ab", "ab", true}, {"ab", "ac", false}, {"ab", "abc", false}, {"", "a", false}} {
		if got := sameBytes([]byte(c.a), []byte(c.b)); got != c.want {
			t.Errorf("sameBytes(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

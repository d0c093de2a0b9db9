package conf

// Config is a parsed scheduler configuration.
type Config struct {
	// Actions run in this order in every session.
	Actions        []string
	Tiers          []Tier
	Configurations []Configuration
	// Metrics is where node usage is measured; its Type is "" when the
	// file has no metrics section.
	Metrics Metrics
	// Source names where the configuration came from, for messages.
	Source string
}

// Tier is a group of plugins; for several hook kinds an earlier tier's
// answer wins over a later one's.
type Tier struct {
	Plugins []PluginOption
}

// Configuration holds the arguments of one action.
type Configuration struct {
	Name      string
	Arguments map[string]any
}

// PluginOption is one tier entry. Each Enabled flag says whether the named
// hook of the plugin takes part; after defaulting none is nil.
type PluginOption struct {
	Name      string
	Arguments map[string]any

	EnabledJobOrder          *bool
	EnabledHierarchy         *bool
	EnabledJobReady          *bool
	EnabledJobPipelined      *bool
	EnabledTaskOrder         *bool
	EnabledPreemptable       *bool
	EnabledReclaimable       *bool
	EnablePreemptive         *bool
	EnabledQueueOrder        *bool
	EnabledClusterOrder      *bool
	EnabledPredicate         *bool
	EnabledBestNode          *bool
	EnabledNodeOrder         *bool
	EnabledTargetJob         *bool
	EnabledReservedNodes     *bool
	EnabledJobEnqueued       *bool
	EnabledVictim            *bool
	EnabledJobStarving       *bool
	EnabledOverused          *bool
	EnabledAllocatable       *bool
	EnabledHyperNodeOrder    *bool
	EnabledSubJobReady       *bool
	EnabledSubJobPipelined   *bool
	EnabledSubJobOrder       *bool
	EnabledHyperNodeGradient *bool
}

// flagField ties a YAML key to the option field it sets. The keys are
// Volcano's, including its inconsistent enable/enabled prefixes.
type flagField struct {
	key string
	get func(*PluginOption) **bool
	// defaultOff marks the flags that Volcano's defaulting leaves unset
	// (and so disabled) when the file omits them.
	defaultOff bool
}

var flagFields = []flagField{
	{"enableJobOrder", func(o *PluginOption) **bool { return &o.EnabledJobOrder }, false},
	{"enableHierarchy", func(o *PluginOption) **bool { return &o.EnabledHierarchy }, true},
	{"enableJobReady", func(o *PluginOption) **bool { return &o.EnabledJobReady }, false},
	{"enableJobPipelined", func(o *PluginOption) **bool { return &o.EnabledJobPipelined }, false},
	{"enableTaskOrder", func(o *PluginOption) **bool { return &o.EnabledTaskOrder }, false},
	{"enablePreemptable", func(o *PluginOption) **bool { return &o.EnabledPreemptable }, false},
	{"enableReclaimable", func(o *PluginOption) **bool { return &o.EnabledReclaimable }, false},
	{"enablePreemptive", func(o *PluginOption) **bool { return &o.EnablePreemptive }, false},
	{"enableQueueOrder", func(o *PluginOption) **bool { return &o.EnabledQueueOrder }, false},
	{"enabledClusterOrder", func(o *PluginOption) **bool { return &o.EnabledClusterOrder }, true},
	{"enablePredicate", func(o *PluginOption) **bool { return &o.EnabledPredicate }, false},
	{"enableBestNode", func(o *PluginOption) **bool { return &o.EnabledBestNode }, false},
	{"enableNodeOrder", func(o *PluginOption) **bool { return &o.EnabledNodeOrder }, false},
	{"enableTargetJob", func(o *PluginOption) **bool { return &o.EnabledTargetJob }, false},
	{"enableReservedNodes", func(o *PluginOption) **bool { return &o.EnabledReservedNodes }, false},
	{"enableJobEnqueued", func(o *PluginOption) **bool { return &o.EnabledJobEnqueued }, false},
	{"enabledVictim", func(o *PluginOption) **bool { return &o.EnabledVictim }, false},
	{"enableJobStarving", func(o *PluginOption) **bool { return &o.EnabledJobStarving }, false},
	{"enabledOverused", func(o *PluginOption) **bool { return &o.EnabledOverused }, false},
	{"enabledAllocatable", func(o *PluginOption) **bool { return &o.EnabledAllocatable }, false},
	{"enabledHyperNodeOrder", func(o *PluginOption) **bool { return &o.EnabledHyperNodeOrder }, false},
	{"enabledSubJobReady", func(o *PluginOption) **bool { return &o.EnabledSubJobReady }, false},
	{"enabledSubJobPipelined", func(o *PluginOption) **bool { return &o.EnabledSubJobPipelined }, false},
	{"enabledSubJobOrder", func(o *PluginOption) **bool { return &o.EnabledSubJobOrder }, false},
	{"enabledHyperNodeGradient", func(o *PluginOption) **bool { return &o.EnabledHyperNodeGradient }, false},
}

// IsEnabled reads a flag after defaulting: nil means disabled.
func IsEnabled(flag *bool) bool { return flag != nil && *flag }

// applyDefaults sets every omitted flag to true, except those Volcano leaves
// off (cluster order and hierarchy).
func (o *PluginOption) applyDefaults() {
	for _, f := range flagFields {
		p := f.get(o)
		if *p == nil && !f.defaultOff {
			t := true
			*p = &t
		}
	}
}

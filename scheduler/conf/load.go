package conf

import (
	_ "embed"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/caldera-scheduler/caldera/internal/configfile"
	"github.com/caldera-scheduler/caldera/internal/regularfile"
)

//go:embed default.yaml
var defaultYAML []byte

// DefaultSource names the built-in configuration in messages.
const DefaultSource = "<built-in default>"

// Validator tells the loader which actions and plugins exist and checks their
// arguments. An error it returns is reported with the file and key.
type Validator interface {
	ValidateAction(name string, args map[string]any) error
	ValidatePlugin(name string, args map[string]any) error
}

// HierarchyValidator is a Validator that also says whether the plugin that
// serves a name takes enableHierarchy: true. A name in HierarchyPlugins may
// be served by a Wasm module, which is not given the queue tree.
type HierarchyValidator interface {
	ValidateHierarchy(name string, args map[string]any) error
}

// Default returns Volcano's default configuration: actions enqueue, allocate,
// backfill; tier 1 priority, gang, conformance; tier 2 overcommit, drf,
// predicates, proportion, nodeorder.
func Default(v Validator) (*Config, error) { return Parse(defaultYAML, DefaultSource, v) }

// DefaultYAML returns the text of the built-in configuration.
func DefaultYAML() []byte { return append([]byte(nil), defaultYAML...) }

// Load reads and validates a configuration file.
func Load(path string, v Validator) (*Config, error) {
	data, err := regularfile.Read(path, regularfile.MaxConfig)
	if err != nil {
		return nil, fmt.Errorf("scheduler configuration: %w", err)
	}
	return Parse(data, path, v)
}

// Parse decodes and validates a configuration. Every problem is reported as
// "source:line: key: what was expected".
func Parse(data []byte, source string, v Validator) (*Config, error) {
	doc, err := configfile.Document(data, source)
	if err != nil {
		return nil, err
	}
	if doc == nil {
		return nil, fmt.Errorf("%s: empty scheduler configuration: expected keys actions and tiers", source)
	}
	p := parser{source: source}
	cfg := &Config{Source: source, Metrics: Metrics{Interval: DefaultMetricsInterval}}
	if doc.Kind != yaml.MappingNode {
		return nil, p.errorf(doc, "the document", "expected a mapping with keys actions, tiers, configurations")
	}
	for i := 0; i+1 < len(doc.Content); i += 2 {
		key, val := doc.Content[i], doc.Content[i+1]
		switch key.Value {
		case "actions":
			if val.Kind != yaml.ScalarNode {
				return nil, p.errorf(val, "actions", "expected a comma-separated string such as \"enqueue, allocate, backfill\"")
			}
			for _, a := range strings.Split(val.Value, ",") {
				if a = strings.TrimSpace(a); a != "" {
					cfg.Actions = append(cfg.Actions, a)
				}
			}
		case "tiers":
			tiers, err := p.tiers(val)
			if err != nil {
				return nil, err
			}
			cfg.Tiers = tiers
		case "configurations":
			confs, err := p.configurations(val)
			if err != nil {
				return nil, err
			}
			cfg.Configurations = confs
		case "metrics":
			m, err := p.metrics(val)
			if err != nil {
				return nil, err
			}
			cfg.Metrics = m
		default:
			return nil, p.errorf(key, key.Value, "unknown key: expected actions, tiers, configurations or metrics")
		}
	}
	if len(cfg.Actions) == 0 {
		return nil, fmt.Errorf("%s: actions: expected at least one action", source)
	}
	if err := p.validate(cfg, doc, v); err != nil {
		return nil, err
	}
	return cfg, nil
}

type parser struct{ source string }

func (p parser) errorf(n *yaml.Node, key, format string, args ...any) error {
	return configfile.Errorf(p.source, n, key, format, args...)
}

func (p parser) tiers(n *yaml.Node) ([]Tier, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, p.errorf(n, "tiers", "expected a list of tiers, each with a plugins list")
	}
	var tiers []Tier
	for ti, tn := range n.Content {
		where := fmt.Sprintf("tiers[%d]", ti)
		if tn.Kind != yaml.MappingNode {
			return nil, p.errorf(tn, where, "expected a mapping with a plugins list")
		}
		var tier Tier
		for i := 0; i+1 < len(tn.Content); i += 2 {
			key, val := tn.Content[i], tn.Content[i+1]
			if key.Value != "plugins" {
				return nil, p.errorf(key, where+"."+key.Value, "unknown key: expected plugins")
			}
			if val.Kind != yaml.SequenceNode {
				return nil, p.errorf(val, where+".plugins", "expected a list of plugins")
			}
			for pi, pn := range val.Content {
				opt, err := p.plugin(pn, fmt.Sprintf("%s.plugins[%d]", where, pi))
				if err != nil {
					return nil, err
				}
				tier.Plugins = append(tier.Plugins, opt)
			}
		}
		tiers = append(tiers, tier)
	}
	return tiers, nil
}

// HierarchyPlugins are the plugins that take enableHierarchy: true: capacity
// shares resources over the queue tree (spec.parent); drf orders queues and
// reclaims by hierarchical DRF over their volcano.sh/hierarchy paths;
// nodegroup passes a queue's node-group affinity down to queues without one.
var HierarchyPlugins = map[string]bool{"capacity": true, "drf": true, "nodegroup": true}

func (p parser) plugin(n *yaml.Node, where string) (PluginOption, error) {
	var opt PluginOption
	var hierarchy *yaml.Node // an enableHierarchy: true, checked once the name is known
	if n.Kind != yaml.MappingNode {
		return opt, p.errorf(n, where, "expected a mapping with a name")
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		switch key.Value {
		case "name":
			opt.Name = val.Value
		case "arguments":
			args, err := p.arguments(val, where+".arguments")
			if err != nil {
				return opt, err
			}
			opt.Arguments = args
		default:
			field := findFlag(key.Value)
			if field == nil {
				return opt, p.errorf(key, where+"."+key.Value, "unknown key: expected name, arguments or a plugin flag such as enableJobOrder")
			}
			var b bool
			if val.Kind != yaml.ScalarNode || val.Decode(&b) != nil {
				return opt, p.errorf(val, where+"."+key.Value, "expected true or false, got %q", val.Value)
			}
			if b && key.Value == "enableHierarchy" {
				hierarchy = val
			}
			*field.get(&opt) = &b
		}
	}
	if opt.Name == "" {
		return opt, p.errorf(n, where+".name", "expected a plugin name")
	}
	if hierarchy != nil && !HierarchyPlugins[opt.Name] {
		// Volcano's hierarchical DRF and capacity plugin share resources
		// over queue trees; Caldera's shares are flat, and a flat share in
		// place of the tree's would move placements.
		return opt, p.errorf(hierarchy, where+".enableHierarchy", "hierarchical queues are not implemented for %s (README, \"Volcano's plugins and actions\"): set it to false or remove it", opt.Name)
	}
	opt.applyDefaults()
	return opt, nil
}

func findFlag(key string) *flagField {
	for i := range flagFields {
		if flagFields[i].key == key {
			return &flagFields[i]
		}
	}
	return nil
}

func (p parser) arguments(n *yaml.Node, where string) (map[string]any, error) {
	if n.Kind == yaml.ScalarNode && (n.Tag == "!!null" || n.Value == "") {
		return nil, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, p.errorf(n, where, "expected a mapping of argument names to values")
	}
	var args map[string]any
	if err := n.Decode(&args); err != nil {
		return nil, p.errorf(n, where, "%v", err)
	}
	return args, nil
}

func (p parser) configurations(n *yaml.Node) ([]Configuration, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, p.errorf(n, "configurations", "expected a list of {name, arguments}")
	}
	var out []Configuration
	for ci, cn := range n.Content {
		where := fmt.Sprintf("configurations[%d]", ci)
		if cn.Kind != yaml.MappingNode {
			return nil, p.errorf(cn, where, "expected a mapping with name and arguments")
		}
		var c Configuration
		for i := 0; i+1 < len(cn.Content); i += 2 {
			key, val := cn.Content[i], cn.Content[i+1]
			switch key.Value {
			case "name":
				c.Name = val.Value
			case "arguments":
				args, err := p.arguments(val, where+".arguments")
				if err != nil {
					return nil, err
				}
				c.Arguments = args
			default:
				return nil, p.errorf(key, where+"."+key.Value, "unknown key: expected name or arguments")
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// validate checks names and arguments against what exists. Line numbers are
// found again from the document so that messages point at the entry.
func (p parser) validate(cfg *Config, doc *yaml.Node, v Validator) error {
	if v == nil {
		return nil
	}
	for _, a := range cfg.Actions {
		if err := v.ValidateAction(a, ActionArguments(cfg.Configurations, a)); err != nil {
			return fmt.Errorf("%s: actions: %q: %v", p.source, a, err)
		}
	}
	for i, c := range cfg.Configurations {
		if err := v.ValidateAction(c.Name, c.Arguments); err != nil {
			return fmt.Errorf("%s: configurations[%d] (%s): %v", p.source, i, c.Name, err)
		}
	}
	seen := map[string]bool{}
	for ti, t := range cfg.Tiers {
		for pi, opt := range t.Plugins {
			where := fmt.Sprintf("tiers[%d].plugins[%d] (%s)", ti, pi, opt.Name)
			if seen[opt.Name] {
				return fmt.Errorf("%s: %s: plugin %q is listed twice", p.source, where, opt.Name)
			}
			seen[opt.Name] = true
			if err := v.ValidatePlugin(opt.Name, opt.Arguments); err != nil {
				return fmt.Errorf("%s: %s: %v", p.source, where, err)
			}
			if hv, ok := v.(HierarchyValidator); ok && IsEnabled(opt.EnabledHierarchy) {
				if err := hv.ValidateHierarchy(opt.Name, opt.Arguments); err != nil {
					return fmt.Errorf("%s: %s: enableHierarchy: %v", p.source, where, err)
				}
			}
		}
	}
	return nil
}

// ActionArguments returns the arguments configured for an action, or nil.
func ActionArguments(confs []Configuration, action string) map[string]any {
	for _, c := range confs {
		if c.Name == action {
			return c.Arguments
		}
	}
	return nil
}

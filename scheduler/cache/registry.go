package cache

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/caldera-scheduler/caldera/internal/configfile"
	"github.com/caldera-scheduler/caldera/internal/regularfile"
)

// DefaultEventHandler is the name of the handler that records every event
// as it comes: the cache's own behaviour.
const DefaultEventHandler = "default"

// HandlerContext is what a handler factory is given.
type HandlerContext struct {
	// Name is the handler's name as --event-handler gave it.
	Name string
	// Default records events in the cache.
	Default EventHandler
	// Config is the handler section of --event-handler-config, as JSON;
	// nil when there is none.
	Config json.RawMessage
	// RestConfig reaches the API server; nil in the simulator.
	RestConfig *rest.Config
}

// HandlerFactory builds an event handler.
type HandlerFactory func(HandlerContext) (EventHandler, error)

// InformerContext is what a custom informer factory is given.
type InformerContext struct {
	// Name is the informer's name in --event-handler-config.
	Name string
	// Config is the informer's config section, as JSON; nil when there is
	// none.
	Config json.RawMessage
}

// CustomInformer is a source of objects that are not in the API server. Its
// events reach the event handler as events of Kind. The cache runs it
// with the API informers and waits for it before the first session.
type CustomInformer struct {
	Kind     string
	Informer cache.SharedIndexInformer
}

// InformerFactory builds a custom informer.
type InformerFactory func(InformerContext) (CustomInformer, error)

// Registry holds the event handlers and custom informers that
// --event-handler and --event-handler-config can name. It is a value:
// each command builds its own.
type Registry struct {
	handlers  map[string]HandlerFactory
	informers map[string]InformerFactory
}

// NewRegistry returns a registry holding the default handler.
func NewRegistry() *Registry {
	r := &Registry{handlers: map[string]HandlerFactory{}, informers: map[string]InformerFactory{}}
	r.RegisterHandler(DefaultEventHandler, func(hc HandlerContext) (EventHandler, error) {
		if configfile.Given(hc.Config) {
			return nil, fmt.Errorf("the default event handler takes no configuration")
		}
		return hc.Default, nil
	})
	return r
}

// RegisterHandler adds a handler; a second one of the same name replaces
// the first.
func (r *Registry) RegisterHandler(name string, f HandlerFactory) { r.handlers[name] = f }

// RegisterInformer adds a custom informer.
func (r *Registry) RegisterInformer(name string, f InformerFactory) { r.informers[name] = f }

// Handler returns the factory of a handler.
func (r *Registry) Handler(name string) (HandlerFactory, bool) {
	f, ok := r.handlers[name]
	return f, ok
}

// HandlerNames lists the registered handlers, sorted.
func (r *Registry) HandlerNames() []string { return slices.Sorted(maps.Keys(r.handlers)) }

// InformerNames lists the registered custom informers, sorted.
func (r *Registry) InformerNames() []string { return slices.Sorted(maps.Keys(r.informers)) }

// HandlerFile is the content of --event-handler-config, read once by
// ReadHandlerFile and handed to the cache (Options.EventHandlerConfig) and
// to whatever else needs it, such as a Wasm handler's limits.
type HandlerFile struct {
	// Path is the file read, for messages; "" when there was none.
	Path string `json:"-"`
	// Handler configures the handler; its shape is the handler's.
	Handler json.RawMessage `json:"handler,omitempty"`
	// Informers are the custom informers to run.
	Informers []InformerSpec `json:"informers,omitempty"`
}

// InformerSpec names a registered custom informer and configures it.
type InformerSpec struct {
	Name   string          `json:"name"`
	Config json.RawMessage `json:"config,omitempty"`
}

// ReadHandlerFile reads and checks --event-handler-config; "" (no flag)
// and a file that gives nothing are an empty configuration.
func ReadHandlerFile(path string) (*HandlerFile, error) {
	if path == "" {
		return &HandlerFile{}, nil
	}
	data, err := regularfile.Read(path, regularfile.MaxConfig)
	if err != nil {
		return nil, fmt.Errorf("--event-handler-config: %w", err)
	}
	return ParseHandlerFile(data, path)
}

// ParseHandlerFile checks the text of an --event-handler-config file by
// the rules of every configuration file (internal/configfile).
func ParseHandlerFile(data []byte, path string) (*HandlerFile, error) {
	doc, err := configfile.Document(data, path)
	if err != nil {
		return nil, fmt.Errorf("--event-handler-config %w", err)
	}
	raw, err := configfile.JSON(doc, path)
	if err != nil {
		return nil, fmt.Errorf("--event-handler-config %w", err)
	}
	f := &HandlerFile{}
	if _, err := configfile.Section(raw, f); err != nil {
		return nil, fmt.Errorf("--event-handler-config %s: %w", path, err)
	}
	f.Path = path
	seen := map[string]bool{}
	for i, s := range f.Informers {
		if s.Name == "" {
			return nil, fmt.Errorf("--event-handler-config %s: informers[%d] has no name", path, i)
		}
		if seen[s.Name] {
			return nil, fmt.Errorf("--event-handler-config %s: informer %q is listed twice", path, s.Name)
		}
		seen[s.Name] = true
	}
	return f, nil
}

// build makes the handler and the custom informers that the options name.
func (r *Registry) build(opts Options, def EventHandler) (EventHandler, []CustomInformer, error) {
	name := opts.EventHandler
	if name == "" {
		name = DefaultEventHandler
	}
	file := opts.EventHandlerConfig
	if file == nil {
		file = &HandlerFile{}
	}
	factory, ok := r.handlers[name]
	if !ok {
		return nil, nil, fmt.Errorf("--event-handler %q: no such event handler (registered: %s)", name, strings.Join(r.HandlerNames(), ", "))
	}
	h, err := factory(HandlerContext{Name: name, Default: def, Config: file.Handler, RestConfig: opts.RestConfig})
	if err != nil {
		return nil, nil, fmt.Errorf("event handler %s: %w", name, err)
	}
	var custom []CustomInformer
	for _, s := range file.Informers {
		f, ok := r.informers[s.Name]
		if !ok {
			return nil, nil, fmt.Errorf("--event-handler-config: no custom informer %q (registered: %s)", s.Name, strings.Join(r.InformerNames(), ", "))
		}
		ci, err := f(InformerContext{Name: s.Name, Config: s.Config})
		if err != nil {
			return nil, nil, fmt.Errorf("custom informer %s: %w", s.Name, err)
		}
		if ci.Kind == "" || ci.Informer == nil {
			return nil, nil, fmt.Errorf("custom informer %s: its factory returned no kind or no informer", s.Name)
		}
		custom = append(custom, ci)
	}
	return h, custom, nil
}

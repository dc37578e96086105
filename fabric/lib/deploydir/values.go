package deploydir

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/fabricops/fabric/fabric/lib/yamldoc"
	"gopkg.in/yaml.v3"
)

// Service names of values.yaml the upgrade edits.
const (
	APIServer     = "rda_api_server"
	GeoDR         = "geodr_api_server"
	FSM           = "rda_fsm"
	AlertIngester = "rda_alert_ingester"
	EventConsumer = "rda_event_consumer"
	Worker        = "rda_worker"
)

// PlatformServices are the services whose hosts are platform hosts
// (with Worker's, the hosts step 3 makes a directory for).
var PlatformServices = []string{APIServer, "rda_registry", "rda_scheduler", "rda_collector", "rda_identity", "rda_asm", "rda_access_manager", "rda_resource_manager", "rda_user_preferences"}

// Removed are the service entries step 3 takes out of values.yaml: the
// AIA dependency and the asset dependency.
var Removed = []string{"rda_aia_dependency", "rda_asset_dependency"}

// serviceKeys are the settings that make a section of values.yaml a
// service's.
var serviceKeys = []string{"hosts", "deployment", "mem_limit", "memswap_limit", "privileged", "cap_add", "environment"}

// yamlLimits bound the YAML files of a deployment directory.
var yamlLimits = yamldoc.Limits{Size: 8 << 20}

// parseYAML parses one YAML document (bounded) and returns its top node,
// a mapping.
func parseYAML(data []byte) (*yaml.Node, error) {
	doc, err := yamldoc.ParseOne(data, yamlLimits)
	if err != nil {
		return nil, errors.New(oneLine(err.Error()))
	}
	if doc == nil || len(doc.Content) == 0 {
		return nil, errors.New("the file is empty")
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("line %d: not a mapping of names to settings", top.Line)
	}
	return doc, nil
}

// oneLine joins the lines of an error's text.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// editYAML parses data, calls edit with the document and, when edit
// changed it, encodes it again (two-space indents); unchanged, data is
// returned as it was.
func editYAML(data []byte, edit func(doc *yaml.Node) (bool, error)) ([]byte, bool, error) {
	doc, err := parseYAML(data)
	if err != nil {
		return nil, false, err
	}
	changed, err := edit(doc)
	if err != nil || !changed {
		return data, false, err
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, false, err
	}
	if err := enc.Close(); err != nil {
		return nil, false, err
	}
	return b.Bytes(), true, nil
}

// CheckValues parses values.yaml: a mapping of sections, where the
// API server's is.
func CheckValues(data []byte) error {
	doc, err := parseYAML(data)
	if err != nil {
		return err
	}
	if get(doc.Content[0], APIServer) == nil {
		return fmt.Errorf("no %s section", APIServer)
	}
	return nil
}

// get returns the value of key in mapping m, or nil.
func get(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// isService reports whether a section's value is a service's settings.
func isService(v *yaml.Node) bool {
	if v.Kind != yaml.MappingNode {
		return false
	}
	for _, k := range serviceKeys {
		if get(v, k) != nil {
			return true
		}
	}
	return false
}

// Hosts returns the hosts of the named services, in order, once each.
func Hosts(data []byte, services ...string) ([]string, error) {
	doc, err := parseYAML(data)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, s := range services {
		out = appendHosts(out, get(get(doc.Content[0], s), "hosts"))
	}
	return out, nil
}

// AllHosts returns the hosts of every service, in order, once each.
func AllHosts(data []byte) ([]string, error) {
	doc, err := parseYAML(data)
	if err != nil {
		return nil, err
	}
	var out []string
	top := doc.Content[0]
	for i := 1; i < len(top.Content); i += 2 {
		out = appendHosts(out, get(top.Content[i], "hosts"))
	}
	return out, nil
}

func appendHosts(out []string, hosts *yaml.Node) []string {
	if hosts == nil || hosts.Kind != yaml.SequenceNode {
		return out
	}
	for _, h := range hosts.Content {
		if h.Kind == yaml.ScalarNode && h.Value != "" && !slices.Contains(out, h.Value) {
			out = append(out, h.Value)
		}
	}
	return out
}

// scalar makes a scalar node: a string (quoted when YAML would read it
// as something else, 'no' say) or an int.
func scalar(v any) *yaml.Node {
	switch x := v.(type) {
	case int:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: fmt.Sprint(x)}
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: fmt.Sprint(x)}
	}
	s := fmt.Sprint(v)
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	var probe any
	if err := yaml.Unmarshal([]byte(s), &probe); err != nil || probe != any(s) {
		n.Style = yaml.SingleQuotedStyle
	}
	return n
}

// same reports whether node n holds value v.
func same(n *yaml.Node, v *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Value == v.Value && (n.Tag == v.Tag || n.ShortTag() == v.ShortTag())
}

// setEnv sets environment variables of a service (the environment
// mapping is made when missing); a variable's line comment is kept.
func setEnv(svc *yaml.Node, vars [][2]any) bool {
	env := get(svc, "environment")
	changed := false
	if env == nil {
		env = &yaml.Node{Kind: yaml.MappingNode}
		insertAfter(svc, []string{"cap_add", "privileged", "memswap_limit", "mem_limit"}, "environment", env)
		changed = true
	}
	if env.Kind != yaml.MappingNode {
		return changed
	}
	for _, kv := range vars {
		name := kv[0].(string)
		want := scalar(kv[1])
		if cur := get(env, name); cur != nil {
			if !same(cur, want) {
				cur.Kind, cur.Tag, cur.Value, cur.Style, cur.Content = want.Kind, want.Tag, want.Value, want.Style, nil
				changed = true
			}
			continue
		}
		env.Content = append(env.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: name}, want)
		changed = true
	}
	return changed
}

// insertAfter inserts key: value into mapping m after the first of
// after that it has, or at its end.
func insertAfter(m *yaml.Node, after []string, key string, value *yaml.Node) {
	kv := []*yaml.Node{{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, value}
	for _, a := range after {
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == a {
				m.Content = slices.Insert(m.Content, i+2, kv...)
				return
			}
		}
	}
	m.Content = append(m.Content, kv...)
}

// editService edits the named service of values.yaml; a missing one is
// an error.
func editService(data []byte, name string, edit func(svc *yaml.Node) bool) ([]byte, bool, error) {
	return editYAML(data, func(doc *yaml.Node) (bool, error) {
		svc := get(doc.Content[0], name)
		if svc == nil || svc.Kind != yaml.MappingNode {
			return false, fmt.Errorf("%s: no %s section", Values, name)
		}
		return edit(svc), nil
	})
}

// AddGeoDR adds the geodr_api_server section right after the API
// server's (step 4), on the API server's hosts: 2G of memory and swap,
// privileged, SYS_PTRACE, its environment, not deployed.
func AddGeoDR(data []byte) ([]byte, bool, error) {
	return editYAML(data, func(doc *yaml.Node) (bool, error) {
		top := doc.Content[0]
		if get(top, GeoDR) != nil {
			return false, nil
		}
		api := get(top, APIServer)
		if api == nil {
			return false, fmt.Errorf("%s: no %s section", Values, APIServer)
		}
		var hosts []string
		hosts = appendHosts(hosts, get(api, "hosts"))
		var sec yaml.Node
		text := "mem_limit: 2G\nmemswap_limit: 2G\nprivileged: true\ncap_add:\n  - SYS_PTRACE\nenvironment:\n  RDA_ENABLE_TRACES: 'no'\n  DISABLE_REMOTE_LOGGING_CONTROL: 'no'\n  RDA_SELF_HEALTH_RESTART_AFTER_FAILURES: 3\ndeployment: false\nhosts: []\n"
		if err := yaml.Unmarshal([]byte(text), &sec); err != nil {
			return false, err
		}
		m := sec.Content[0]
		hs := get(m, "hosts")
		hs.Style = 0
		for _, h := range hosts {
			hs.Content = append(hs.Content, scalar(h))
		}
		key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: GeoDR, HeadComment: "# The Geo DR API server (8.1.0.1), on the API server's hosts; not deployed until enabled."}
		for i := 0; i+1 < len(top.Content); i += 2 {
			if top.Content[i].Value == APIServer {
				top.Content = slices.Insert(top.Content, i+2, key, m)
				return true, nil
			}
		}
		return false, nil
	})
}

// SetFSM sets the FSM's purge and cache settings (step 5):
// PURGE_STALE_INSTANCES_DAYS 90, FSM_INSTANCE_CACHE_SIZE 2000,
// PURGE_COMPLETED_INSTANCES_DAYS 1.
func SetFSM(data []byte) ([]byte, bool, error) {
	return editService(data, FSM, func(svc *yaml.Node) bool {
		return setEnv(svc, [][2]any{{"PURGE_COMPLETED_INSTANCES_DAYS", 1}, {"PURGE_STALE_INSTANCES_DAYS", 90}, {"FSM_INSTANCE_CACHE_SIZE", 2000}})
	})
}

// SetIngesterAndConsumer sets the alert ingester's and the event
// consumer's worker counts (step 12).
func SetIngesterAndConsumer(data []byte) ([]byte, bool, error) {
	out, a, err := editService(data, AlertIngester, func(svc *yaml.Node) bool {
		return setEnv(svc, [][2]any{{"INBOUND_PARTITION_WORKERS_MAX", 1}, {"OUTBOUND_TOPIC_WORKERS_MAX", 1}})
	})
	if err != nil {
		return nil, false, err
	}
	out, b, err := editService(out, EventConsumer, func(svc *yaml.Node) bool {
		return setEnv(svc, [][2]any{{"OUTBOUND_WORKERS_MAX", 3}})
	})
	return out, a || b, err
}

// SetProxy adds the proxy variables to the API server's and the
// workers' environment (step 8). noProxy "" lists localhost and every
// host of values.yaml.
func SetProxy(data []byte, proxyURL, noProxy string) ([]byte, bool, error) {
	if noProxy == "" {
		hosts, err := AllHosts(data)
		if err != nil {
			return nil, false, err
		}
		noProxy = strings.Join(append([]string{"localhost", "127.0.0.1"}, hosts...), ",")
	}
	vars := [][2]any{{"http_proxy", proxyURL}, {"https_proxy", proxyURL}, {"HTTP_PROXY", proxyURL}, {"HTTPS_PROXY", proxyURL}, {"no_proxy", noProxy}, {"NO_PROXY", noProxy}}
	changed := false
	for _, s := range []string{APIServer, Worker} {
		var c bool
		var err error
		data, c, err = editService(data, s, func(svc *yaml.Node) bool { return setEnv(svc, vars) })
		if err != nil {
			return nil, false, err
		}
		changed = changed || c
	}
	return data, changed, nil
}

// AddPtrace puts SYS_PTRACE under cap_add of every service section
// (post-step 7).
func AddPtrace(data []byte) ([]byte, bool, error) {
	return editYAML(data, func(doc *yaml.Node) (bool, error) {
		top := doc.Content[0]
		changed := false
		for i := 1; i < len(top.Content); i += 2 {
			svc := top.Content[i]
			if !isService(svc) {
				continue
			}
			caps := get(svc, "cap_add")
			if caps == nil {
				caps = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
				insertAfter(svc, []string{"privileged", "memswap_limit", "mem_limit"}, "cap_add", caps)
				changed = true
			}
			if caps.Kind != yaml.SequenceNode {
				continue
			}
			has := false
			for _, c := range caps.Content {
				has = has || c.Value == "SYS_PTRACE"
			}
			if !has {
				caps.Content = append(caps.Content, scalar("SYS_PTRACE"))
				changed = true
			}
		}
		return changed, nil
	})
}

// RemoveServices takes the named sections out of values.yaml (step 3:
// Removed).
func RemoveServices(data []byte, names ...string) ([]byte, bool, error) {
	return editYAML(data, func(doc *yaml.Node) (bool, error) {
		top := doc.Content[0]
		changed := false
		for i := 0; i+1 < len(top.Content); {
			if slices.Contains(names, top.Content[i].Value) {
				top.Content = slices.Delete(top.Content, i, i+2)
				changed = true
				continue
			}
			i += 2
		}
		return changed, nil
	})
}

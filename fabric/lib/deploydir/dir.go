// Package deploydir is the deployment directory of a non-orchestrated
// installation (SPEC 9.1) and the file edits of its 8.0.0 -> 8.1.0.1
// upgrade. Each edit is a pure function from a file's bytes to its new
// bytes that reports whether it changed anything and changes nothing the
// second time; YAML is edited through yaml.v3's node tree, so that
// comments and key order survive. Reading and writing the files is the
// caller's (fabric/lib/upgradeplan).
package deploydir

import (
	"fmt"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// The files of a deployment directory, by their path in it.
const (
	// Values maps service names to their container settings.
	Values = "values.yaml"
	// Policy holds the policy user credentials, encrypted by the upgrade.
	Policy = "policy.json"
	// HAProxy is the load balancer's configuration.
	HAProxy = "haproxy.cfg"
	// LogRotate is the load balancer's log-rotation configuration, written
	// by step 17.
	LogRotate = "haproxy.logrotate"
	// NATS is the message bus's configuration.
	NATS = "nats.conf"
	// Infra is the compose file of the infra services (tag 1.0.3).
	Infra = "infra.yaml"
	// Platform is the compose file of the platform, worker and
	// application services (tag 8.0.0).
	Platform = "platform.yaml"
	// Gateway is the event gateway's compose file (optional).
	Gateway = "event_gateway/docker-compose.yml"
	// Studio is the studio's compose file (optional).
	Studio = "studio/docker-compose.yml"
	// AlertStream is the alert payload persistent stream's definition
	// (optional).
	AlertStream = "streams/alert-payload.json"
	// HostsDir holds a directory per platform and worker host.
	HostsDir = "deployment-scripts"
	// RuntimeDir is the empty runtime folder step 3 creates.
	RuntimeDir = "config/runtime"
)

// Required are the files a deployment directory must have.
var Required = []string{Values, Policy, HAProxy, NATS, Infra, Platform}

// Optional are the files the upgrade edits when they are there.
var Optional = []string{Gateway, Studio, AlertStream}

// Release tags.
const (
	From          = "8.0.0"
	To            = "8.1.0.1"
	InfraFrom     = "1.0.3"
	LBFrom        = "1.0.3.3"
	InfraTo       = "1.0.4"
	ObjectStoreTo = "RELEASE.2024-12-18T13-15-44Z"
)

// Versions are the releases a directory's compose files are at.
type Versions struct {
	// Platform is the tag of the platform images ("mixed: A, B" when
	// they differ).
	Platform string
	// Infra is the tag of the infra images but the load balancer's and
	// the object store's.
	Infra string
	// LoadBalancer is the load balancer image's tag.
	LoadBalancer string
}

// ReadVersions reads the versions in force from the infra and platform
// compose files.
func ReadVersions(infra, platform []byte) (Versions, error) {
	var v Versions
	imgs, err := Images(infra)
	if err != nil {
		return v, fmt.Errorf("%s: %v", Infra, err)
	}
	var infraTags []string
	for _, img := range imgs {
		_, tag := SplitImage(img)
		switch {
		case isLB(img):
			v.LoadBalancer = tag
		case isObjectStore(img):
		default:
			infraTags = append(infraTags, tag)
		}
	}
	v.Infra = oneTag(infraTags)
	imgs, err = Images(platform)
	if err != nil {
		return v, fmt.Errorf("%s: %v", Platform, err)
	}
	var tags []string
	for _, img := range imgs {
		_, tag := SplitImage(img)
		tags = append(tags, tag)
	}
	v.Platform = oneTag(tags)
	if v.Platform == "" {
		return v, fmt.Errorf("%s: no image of a service", Platform)
	}
	return v, nil
}

// oneTag is the tag all of tags are, or "mixed: ..." naming them.
func oneTag(tags []string) string {
	set := map[string]bool{}
	for _, t := range tags {
		set[t] = true
	}
	var all []string
	for t := range set {
		all = append(all, t)
	}
	sort.Strings(all)
	if len(all) <= 1 {
		return strings.Join(all, "")
	}
	return "mixed: " + strings.Join(all, ", ")
}

// isLB reports whether an image is the load balancer's.
func isLB(image string) bool { return strings.Contains(imageName(image), "haproxy") }

// isObjectStore reports whether an image is the object store's.
func isObjectStore(image string) bool { return strings.Contains(imageName(image), "minio") }

// imageName is the last path element of an image, without its tag.
func imageName(image string) string {
	repo, _ := SplitImage(image)
	return repo[strings.LastIndex(repo, "/")+1:]
}

// SplitImage splits an image reference into its repository and tag
// ("" when it has none; a digest counts as no tag).
func SplitImage(image string) (repo, tag string) {
	if i := strings.Index(image, "@"); i >= 0 {
		return image, ""
	}
	slash := strings.LastIndex(image, "/")
	if i := strings.LastIndex(image, ":"); i > slash {
		return image[:i], image[i+1:]
	}
	return image, ""
}

// Images returns the image of each service of a compose file, in order.
func Images(data []byte) ([]string, error) {
	doc, err := parseYAML(data)
	if err != nil {
		return nil, err
	}
	var out []string
	walkImages(doc, func(n *yaml.Node) { out = append(out, n.Value) })
	return out, nil
}

// walkImages calls fn with every scalar value of a key "image".
func walkImages(n *yaml.Node, fn func(*yaml.Node)) {
	if n == nil {
		return
	}
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Value == "image" && v.Kind == yaml.ScalarNode {
				fn(v)
				continue
			}
			walkImages(v, fn)
		}
		return
	}
	for _, c := range n.Content {
		walkImages(c, fn)
	}
}

// InfraTag is the 8.1.0.1 tag of an infra image: the object store's
// release, 1.0.4 for the others.
func InfraTag(image string) string {
	if isObjectStore(image) {
		return ObjectStoreTo
	}
	return InfraTo
}

// PlatformTag is the 8.1.0.1 tag of a platform, worker, application,
// gateway or studio image.
func PlatformTag(string) string { return To }

// SetImageTags gives every image of a compose file the tag tagFor
// returns for it.
func SetImageTags(data []byte, tagFor func(image string) string) ([]byte, bool, error) {
	return editYAML(data, func(doc *yaml.Node) (bool, error) {
		changed := false
		walkImages(doc, func(n *yaml.Node) {
			repo, tag := SplitImage(n.Value)
			if want := tagFor(n.Value); want != "" && want != tag {
				n.Value = repo + ":" + want
				changed = true
			}
		})
		return changed, nil
	})
}

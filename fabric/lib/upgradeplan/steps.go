// Package upgradeplan is the 8.0.0 -> 8.1.0.1 upgrade of a deployment
// directory (SPEC 9.1) as an ordered list of steps: the file edits
// (fabric/lib/deploydir's), made by Apply, and the steps only a person
// can do, recorded when confirmed. Each step done is recorded in the
// directory's state file, so that Apply resumes after the last one and
// a second Apply changes nothing; MakePlan shows every edit as a unified
// diff and changes no byte.
package upgradeplan

import (
	"fmt"
	"strings"

	"github.com/fabricops/fabric/fabric/lib/deploydir"
)

// Kinds of step.
const (
	// File is a step Apply makes: edits of the directory's files.
	File = "file"
	// Manual is a step a person does; it is recorded when confirmed.
	Manual = "manual"
)

// Step is a step of the upgrade.
type Step struct {
	// ID is the step's number in SPEC 9.1: pre-N for a prerequisite, N
	// or N.M for a step (3.M are the parts of step 3), post-N for a
	// post-upgrade step.
	ID    string `json:"id"`
	Title string `json:"title"`
	Kind  string `json:"kind"`
	// Todo is what a person does, for a manual step.
	Todo string `json:"todo,omitempty"`
	// edit makes a file step's edits; it returns a note when it has
	// nothing to do.
	edit func(w *work) (string, error)
	// redo reports whether a step done is to be done again under the
	// options of a run.
	redo func(o *Options, r Record) bool
}

// Steps returns the steps of the 8.0.0 -> 8.1.0.1 upgrade, in order.
func Steps() []Step {
	d := deploydir.Values
	return []Step{
		{ID: "pre-2", Kind: Manual, Title: "Snapshots and backup", Todo: "Give each search-store node 100 GB more disk, take VM snapshots, and take a full backup of the application data to a directory mounted on all infra and CLI VMs."},
		{ID: "pre-3", Kind: Manual, Title: "Webhook port 7443 -> 443", Todo: "In the UI (Administration, Organization, Configure, Alert Endpoints) change the webhook URL to port 443, and every pipeline or external sender that uses port 7443."},
		{ID: "pre-4", Kind: Manual, Title: "Maintenance window", Todo: "Schedule a maintenance window (the upgrade is disruptive unless the rolling upgrade is used)."},
		{ID: "1", Kind: Manual, Title: "Deployment CLI 1.4.1", Todo: "Upgrade the deployment CLI to 1.4.1 on the registry VM and on the management VM."},
		{ID: "2", Kind: Manual, Title: "Registry credentials", Todo: "Update the registry credentials (<REGISTRY_USER>, <REGISTRY_PASSWORD>) and the registry."},
		{ID: "3.1", Kind: File, Title: "Encrypt the credentials of " + deploydir.Policy, edit: encryptPolicy},
		{ID: "3.2", Kind: File, Title: "A directory per platform and worker host, and the runtime folder", edit: hostDirs},
		{ID: "3.3", Kind: File, Title: "Remove the AIA dependency and asset-dependency services from " + d, edit: fileEdit(d, func(b []byte) ([]byte, bool, error) { return deploydir.RemoveServices(b, deploydir.Removed...) })},
		{ID: "3.4", Kind: File, Title: "Remove the JetStream section of " + deploydir.NATS, edit: fileEdit(deploydir.NATS, deploydir.RemoveJetStream)},
		{ID: "3.5", Kind: File, Title: "Add the webhook backend to " + deploydir.HAProxy, edit: fileEdit(deploydir.HAProxy, deploydir.AddWebhookBackend)},
		{ID: "3.6", Kind: Manual, Title: "Run the 1.4.0 -> 1.4.1 upgrade script", Todo: "Run the upgrade script's upgrade, haproxy_upgrade and cleanup_haproxy on the hosts (it cleans expiring search-store certificates and injects the portal-backend environment)."},
		{ID: "4", Kind: File, Title: "Add geodr_api_server after rda_api_server in " + d, edit: fileEdit(d, deploydir.AddGeoDR)},
		{ID: "5", Kind: File, Title: "FSM purge and cache settings in " + d, edit: fileEdit(d, deploydir.SetFSM)},
		{ID: "6", Kind: File, Title: "Image tags 1.0.4 (infra) and 8.1.0.1 (platform, workers, applications)", edit: imageTags},
		{ID: "7", Kind: Manual, Title: "Upgrade the infra services", Todo: "Download the new images, upgrade the infra services, then check their status and health (ports, service status, firewall port); upgrade the external search store if installed."},
		{ID: "8", Kind: File, Title: "Proxy variables of the API server and the workers", edit: proxy,
			redo: func(o *Options, r Record) bool { return o.Proxy != "" && strings.HasPrefix(r.Note, noProxy) }},
		{ID: "9", Kind: Manual, Title: "Upgrade the platform services", Todo: "Upgrade the platform services (rolling optional); check every container shows 8.1.0.1, the scheduler is the elected leader and every health parameter is ok."},
		{ID: "10", Kind: Manual, Title: "Upgrade the client CLI", Todo: "Upgrade the client CLI (client update)."},
		{ID: "11", Kind: Manual, Title: "Upgrade the worker services", Todo: "Upgrade the worker services (rolling optional), wait 120 seconds for the new workers to join, then check status and health."},
		{ID: "12", Kind: File, Title: "Alert ingester and event consumer settings in " + d, edit: fileEdit(d, deploydir.SetIngesterAndConsumer)},
		{ID: "13", Kind: Manual, Title: "Upgrade the OIA application services", Todo: "Upgrade the OIA application services (rolling optional) and check them."},
		{ID: "14", Kind: File, Title: "Event gateway image 8.1.0.1", edit: optionalTags(deploydir.Gateway)},
		{ID: "15", Kind: File, Title: "Studio image 8.1.0.1", edit: optionalTags(deploydir.Studio)},
		{ID: "16", Kind: Manual, Title: "Bulk-stats and file-object services", Todo: "Upgrade the bulk-stats and file-object services if they are used."},
		{ID: "17", Kind: File, Title: "Log rotation of the load balancer", edit: logRotation},
		{ID: "post-1", Kind: Manual, Title: "Restart the application controller", Todo: "Restart both instances of the application controller."},
		{ID: "post-2", Kind: Manual, Title: "Cleared alerts retention 8760 hours", Todo: "Set Cleared Alerts Data Retention in Database to 8760 hours."},
		{ID: "post-3", Kind: File, Title: "Stop the purge of the alert payload stream", edit: optionalEdit(deploydir.AlertStream, func(b []byte) ([]byte, bool, error) { return deploydir.RemoveKeys(b, deploydir.StreamPurgeKeys...) })},
		{ID: "post-4", Kind: Manual, Title: "Delete the unactivated system-bundle packs", Todo: "client pack cleanup-system --test --stats, then client pack cleanup-system --stats."},
		{ID: "post-5", Kind: Manual, Title: "Upload the catalogue packs", Todo: "client pack install-catalogue --dir PACKS_DIR (fault-management base 9.0.13, inventory-collection base 7.2.0, virtualization inventory 9.0.2, network-device discovery 9.0.0, ML 9.0.0, asset-correlation regression 9.0.1)."},
		{ID: "post-6", Kind: Manual, Title: "Activate the base packs, then the others", Todo: "client pack install-catalogue activates the base packs first, then the others that were deployed."},
		{ID: "post-7", Kind: File, Title: "SYS_PTRACE under cap_add of every service in " + d, edit: fileEdit(d, deploydir.AddPtrace)},
		{ID: "post-8", Kind: Manual, Title: "Purge the alert history", Todo: "Run the manual purge of alert-history data; after it succeeds set Cleared Alerts Data Retention in Database to 1 hour."},
		{ID: "post-9", Kind: Manual, Title: "Copy the suppression and correlation policies", Todo: "Copy the suppression and correlation policies from the database to the persistent stream with the provided script."},
	}
}

// find returns the step of an id.
func find(id string) (Step, bool) {
	for _, s := range Steps() {
		if s.ID == id {
			return s, true
		}
	}
	return Step{}, false
}

// fileEdit is a step that edits one required file.
func fileEdit(name string, edit func([]byte) ([]byte, bool, error)) func(*work) (string, error) {
	return func(w *work) (string, error) { return "", w.edit(name, edit) }
}

// optionalEdit edits a file the directory may not have.
func optionalEdit(name string, edit func([]byte) ([]byte, bool, error)) func(*work) (string, error) {
	return func(w *work) (string, error) {
		if !w.exists(name) {
			return "the directory has no " + name, nil
		}
		return "", w.edit(name, edit)
	}
}

// optionalTags gives a compose file's images the 8.1.0.1 tag.
func optionalTags(name string) func(*work) (string, error) {
	return optionalEdit(name, func(b []byte) ([]byte, bool, error) { return deploydir.SetImageTags(b, deploydir.PlatformTag) })
}

func imageTags(w *work) (string, error) {
	if err := w.edit(deploydir.Infra, func(b []byte) ([]byte, bool, error) { return deploydir.SetImageTags(b, deploydir.InfraTag) }); err != nil {
		return "", err
	}
	return "", w.edit(deploydir.Platform, func(b []byte) ([]byte, bool, error) { return deploydir.SetImageTags(b, deploydir.PlatformTag) })
}

func encryptPolicy(w *work) (string, error) {
	return "", w.edit(deploydir.Policy, func(b []byte) ([]byte, bool, error) { return deploydir.EncryptCredentials(b, w.encrypt) })
}

func hostDirs(w *work) (string, error) {
	values, err := w.read(deploydir.Values)
	if err != nil {
		return "", err
	}
	hosts, err := deploydir.Hosts(values, append(deploydir.PlatformServices, deploydir.Worker)...)
	if err != nil {
		return "", fmt.Errorf("%s: %v", deploydir.Values, err)
	}
	for _, h := range hosts {
		if strings.ContainsAny(h, `/\`) || h == "." || h == ".." {
			return "", fmt.Errorf("%s: host %q is no name for a directory", deploydir.Values, h)
		}
		w.mkdir(deploydir.HostsDir + "/" + h)
	}
	w.mkdir(deploydir.RuntimeDir)
	return "", nil
}

// noProxy starts the note of step 8 done without a proxy.
const noProxy = "no --proxy given"

func proxy(w *work) (string, error) {
	if w.o.Proxy == "" {
		return noProxy + ": the API server reaches the public catalogue directly", nil
	}
	return "", w.edit(deploydir.Values, func(b []byte) ([]byte, bool, error) { return deploydir.SetProxy(b, w.o.Proxy, w.o.NoProxy) })
}

func logRotation(w *work) (string, error) {
	w.create(deploydir.LogRotate, []byte(deploydir.LogRotation))
	return "", nil
}

package cli

import (
	"strings"
	"testing"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/fabrictest"
)

// TestOutputArtifacts: alert rulesets, dashboards and dashboard groups,
// each through add, get, list, delete (and enable, disable), with the bad
// input of each: malformed YAML, a schema violation, a bad CFXQL
// condition, a duplicate without --overwrite, a missing name, a group
// naming a missing dashboard.
func TestOutputArtifacts(t *testing.T) {
	fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer}})
	s := newSession(t, "alert-rules-add", "alert-rules-get", "alert-rules-list", "alert-rules-delete",
		"dashboard-add", "dashboard-get", "dashboard-list", "dashboard-delete", "dashboard-enable", "dashboard-disable",
		"dashgroup-add", "dashgroup-get", "dashgroup-list", "dashgroup-delete", "dashgroup-enable", "dashgroup-disable")
	dir := s.vars["DIR"]
	write(t, dir, "rules.yaml", `name: cpu-rules
description: CPU alerts
realtime-alerts:
  - name: cpu-high
    description: CPU over 90
    groupBy: host
    condition: cpu > 90 and region is 'north'
    severity: CRITICAL
    suppress-for-minutes: 10
aggregate-alerts:
  - name: cpu-avg
    condition: avg_cpu > 50
    severity: MAJOR
`)
	write(t, dir, "bad-condition.yaml", `name: bad
realtime-alerts:
  - name: r1
    condition: cpu >> 90
    severity: CRITICAL
`)
	write(t, dir, "bad-severity.yaml", "name: bad\nrealtime-alerts:\n  - name: r1\n    condition: cpu > 1\n    severity: LOUD\n")
	write(t, dir, "malformed.yaml", "name: x\n  label: [unclosed\n")
	write(t, dir, "ops.yaml", `name: ops
label: Operations
description: the ops board
dashboard_style: tabbed
dashboard_sections:
  - title: CPU
    widgets:
      - widget_type: shaded_chart
        title: CPU
        stream: cpu-metrics
        duration_hours: 24
`)
	write(t, dir, "no-type.yaml", "name: x\ndashboard_sections:\n  - widgets:\n      - title: no type\n")
	write(t, dir, "group.json", `{"name": "ops-group", "label": "Ops", "dashboardList": [{"id": "1", "name": "ops"}], "users": "ann", "description": "ops boards"}`)
	write(t, dir, "group-schema.json", `{"name": "g3", "enabled": "yes", "dashboardList": [{"name": "ops"}]}`)
	write(t, dir, "bad-group.json", `{"name": "g2", "dashboardList": [{"name": "ops"}, {"name": "nope"}]}`)

	s.steps(
		step{cmd: "alert-rules add --file $DIR/rules.yaml"},
		step{cmd: "alert-rules add --file $DIR/rules.yaml", code: 1},
		step{cmd: "alert-rules add --file $DIR/rules.yaml --overwrite"},
		step{cmd: "alert-rules add --file $DIR/bad-condition.yaml", code: 1},
		step{cmd: "alert-rules add --file $DIR/bad-severity.yaml", code: 1},
		step{cmd: "alert-rules add --file $DIR/malformed.yaml", code: 1},
		step{cmd: "alert-rules add --file $DIR/none.yaml", code: 1},
		step{cmd: "alert-rules get --name cpu-rules"},
		step{cmd: "alert-rules get --name nope", code: 1},
		step{cmd: "alert-rules list"},
		step{cmd: "alert-rules list --json"},

		step{cmd: "dashboard add --file $DIR/ops.yaml"},
		step{cmd: "dashboard add --file $DIR/ops.yaml", code: 1},
		step{cmd: "dashboard add --file $DIR/no-type.yaml", code: 1},
		step{cmd: "dashboard add --file $DIR/malformed.yaml", code: 1},
		step{cmd: "dashboard get --name ops"},
		step{cmd: "dashboard get --name nope", code: 1},
		step{cmd: "dashboard list"},
		step{cmd: "dashboard disable --name ops"},
		step{cmd: "dashboard disable --name ops"},
		step{cmd: "dashboard enable --name ops"},
		step{cmd: "dashboard enable --name nope", code: 1},
		step{cmd: "dashboard disable --name nope", code: 1},
		step{cmd: "dashboard list --json"},

		step{cmd: "dashgroup add --file $DIR/group.json"},
		step{cmd: "dashgroup add --file $DIR/bad-group.json", code: 1},
		step{cmd: "dashgroup add --file $DIR/group-schema.json", code: 1},
		step{cmd: "dashgroup add --file $DIR/malformed.yaml", code: 1},
		step{cmd: "dashgroup add --file $DIR/group.json", code: 1},
		step{cmd: "dashgroup get --name ops-group"},
		step{cmd: "dashgroup get --name nope", code: 1},
		step{cmd: "dashgroup list"},
		step{cmd: "dashgroup disable --name ops-group"},
		step{cmd: "dashgroup disable --name nope", code: 1},
		step{cmd: "dashgroup enable --name ops-group"},
		step{cmd: "dashgroup enable --name nope", code: 1},
		step{cmd: "dashboard delete --name ops", code: 1}, // the group lists it
		step{cmd: "dashgroup delete --name ops-group"},
		step{cmd: "dashgroup delete --name ops-group", code: 1},
		step{cmd: "dashgroup list"},

		step{cmd: "dashboard delete --name ops"},
		step{cmd: "dashboard delete --name ops", code: 1},
		step{cmd: "alert-rules delete --name cpu-rules"},
		step{cmd: "alert-rules delete --name cpu-rules", code: 1},
	)
	s.unreachable("alert-rules list", "dashboard list", "dashgroup list")
}

// TestOutputArtifactKinds: the other declared kinds, each through add,
// get, list, delete (and enable, disable), with a duplicate, a schema
// violation, a failed check and a missing name.
func TestOutputArtifactKinds(t *testing.T) {
	fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer}})
	kinds := []struct {
		group, name, good, bad, check string
		toggle                        bool
	}{
		{"stack", "web-stack",
			"name: web-stack\ndescription: the web tier\nversion: '1.2'\ncomponents:\n  - name: lb\n    type: haproxy\n    port: 443\n  - name: app\n    type: service\n    depends_on: [lb]\n",
			"name: s2\ncomponents:\n  - name: lb\n    type: haproxy\n    port: 70000\n",
			"name: s3\ncomponents:\n  - name: app\n    type: service\n    depends_on: [db]\n", false},
		{"site-profile", "edge-sites",
			"name: edge-sites\ndescription: the edge\nsites: ['edge-.*', lab]\nsite_type: edge\nlabels: {tier: edge}\nmin_workers: 2\n",
			"name: p2\nsites: []\n", "", false},
		{"synthetics", "web-probes",
			"name: web-probes\ndescription: probes of the web tier\nstack: web-stack\nschedule: '*/5 * * * *'\nsites: [lab]\nprobes:\n  - name: home\n    type: http\n    target: https://example.test/\n    timeout_seconds: 5\n",
			"name: y2\nstack: web-stack\nprobes:\n  - name: p\n    type: smoke\n",
			"name: y3\nstack: no-such-stack\nprobes:\n  - name: p\n    type: tcp\n", true},
		{"fmt-template", "alert-mail",
			"name: alert-mail\ndescription: the alert mail\nformat: html\ntemplate: '<p>{{host}} is {{status}}</p>'\n",
			"name: f2\nformat: pdf\ntemplate: x\n", "", false},
		{"staging-area", "landing",
			"name: landing\ndescription: files from the field\nfolder: landing/in\ndataset: field-data\nformat: csv\nretention_days: 7\n",
			"name: a2\nfolder: x\nretention_days: 0\n", "", false},
		{"subscription", "crit-alerts",
			"name: crit-alerts\ndescription: critical rows to the on-call hook\nstream: alerts\nfilter: severity is 'CRITICAL'\ntarget:\n  type: webhook\n  url: https://hooks.example.test/oncall\n",
			"name: u2\nstream: alerts\ntarget: {type: pigeon}\n",
			"name: u3\nstream: alerts\nfilter: severity ==\ntarget: {type: email, to: [ops@example.test]}\n", true},
	}
	var keys []string
	for _, k := range kinds {
		keys = append(keys, k.group+"-add", k.group+"-get", k.group+"-list", k.group+"-delete")
		if k.toggle {
			keys = append(keys, k.group+"-enable", k.group+"-disable")
		}
	}
	s := newSession(t, keys...)
	dir := s.vars["DIR"]
	write(t, dir, "malformed.yaml", "name: x\n  label: [unclosed\n")
	var lists []string
	for _, k := range kinds {
		write(t, dir, k.group+".yaml", k.good)
		write(t, dir, k.group+"-bad.yaml", k.bad)
		steps := []step{
			{cmd: k.group + " add --file $DIR/" + k.group + ".yaml"},
			{cmd: k.group + " add --file $DIR/" + k.group + ".yaml", code: 1},
			{cmd: k.group + " add --file $DIR/" + k.group + ".yaml --overwrite"},
			{cmd: k.group + " add --file $DIR/" + k.group + "-bad.yaml", code: 1},
			{cmd: k.group + " add --file $DIR/malformed.yaml", code: 1},
		}
		if k.check != "" {
			write(t, dir, k.group+"-check.yaml", k.check)
			steps = append(steps, step{cmd: k.group + " add --file $DIR/" + k.group + "-check.yaml", code: 1})
		}
		steps = append(steps,
			step{cmd: k.group + " get --name " + k.name},
			step{cmd: k.group + " get --name nope", code: 1},
			step{cmd: k.group + " list"},
			step{cmd: k.group + " list --json"},
		)
		if k.toggle {
			steps = append(steps,
				step{cmd: k.group + " disable --name " + k.name},
				step{cmd: k.group + " disable --name " + k.name},
				step{cmd: k.group + " enable --name " + k.name},
				step{cmd: k.group + " enable --name nope", code: 1},
				step{cmd: k.group + " disable --name nope", code: 1},
			)
		}
		s.steps(steps...)
		lists = append(lists, k.group+" list")
	}
	// A subscription's target is fenced: no mail (no relay), no system
	// stream, not its own stream, no credentials in a URL.
	for name, text := range map[string]string{
		"email":  "name: u4\nstream: alerts\ntarget: {type: email, to: [ops@example.test]}\n",
		"system": "name: u5\nstream: alerts\ntarget: {type: stream, stream: fabric_deployment_updates}\n",
		"loop":   "name: u6\nstream: alerts\ntarget: {type: stream, stream: alerts}\n",
		"creds":  "name: u7\nstream: alerts\ntarget: {type: webhook, url: 'https://u:p@hooks.example.test/'}\n",
		"scheme": "name: u8\nstream: alerts\ntarget: {type: webhook, url: 'ftp://hooks.example.test/'}\n",
	} {
		write(t, dir, "subscription-"+name+".yaml", text)
	}
	for _, name := range []string{"email", "system", "loop", "creds", "scheme"} {
		s.steps(step{cmd: "subscription add --file $DIR/subscription-" + name + ".yaml", code: 1})
	}
	// The synthetic profile names the stack: it is not deleted first.
	s.steps(step{cmd: "stack delete --name web-stack", code: 1})
	for i := len(kinds) - 1; i >= 0; i-- { // synthetics name a stack: delete them first
		k := kinds[i]
		s.steps(step{cmd: k.group + " delete --name " + k.name}, step{cmd: k.group + " delete --name " + k.name, code: 1})
	}
	s.unreachable(lists...)
}

// TestOutputSecrets: secrets are added from --value or standard input,
// and no transcript (get, list, --reveal off a terminal, errors) holds a
// value.
func TestOutputSecrets(t *testing.T) {
	fabrictest.Start(t, fabrictest.Options{Pods: []string{api.APIServer}})
	s := newSession(t, "secret-add", "secret-get", "secret-list", "secret-delete")
	s.steps(
		step{cmd: "secret add --name db-password --value hunter2-value --description 'the database'"},
		step{cmd: "secret add --name api-token", stdin: "token-from-stdin-value\n"},
		step{cmd: "secret add --name db-password --value other-value-1", code: 1},
		step{cmd: "secret add --name db-password --value other-value-2 --overwrite"},
		step{cmd: "secret add --name empty", stdin: "", code: 1},
		step{cmd: "secret get --name db-password"},
		step{cmd: "secret get --name db-password --reveal", code: 1},
		step{cmd: "secret get --name nope", code: 1},
		step{cmd: "secret list"},
		step{cmd: "secret list --json"},
		step{cmd: "secret delete --name api-token"},
		step{cmd: "secret delete --name api-token", code: 1},
	)
	s.unreachable("secret list")
	for key, b := range s.logs {
		for _, v := range []string{"hunter2-value", "token-from-stdin-value", "other-value-1", "other-value-2"} {
			if key != "secret-add" && strings.Contains(b.String(), v) {
				t.Errorf("the transcript of %s shows a secret value", key)
			}
		}
	}
}

package pack

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"
)

// sampleManifest is the manifest.yaml of the SPEC's example pack.
const sampleManifest = `name: netops
version: 1.2.0
description: Network operations content
publisher: Fabric Labs
common_deploy_vars:
  - {name: region, description: where, default: eu-west}
  - {name: api_token, secret: true}
single_tenant_deploy_vars:
  - {name: owner, default: ops}
customer_deploy_vars:
  - {name: customer_name}
artifacts:
  dashboard:
    - {name: overview, file: dashboards/overview.yaml}
    - {name: customer-view, file: dashboards/customer.yaml, scope: customer}
  pipeline:
    - {name: hosts, file: pipelines/hosts.pipeline}
  blueprint:
    - {name: web, file: blueprints/web.yaml, scope: single_tenant, creation_policy: skip}
  credential:
    - {name: snmp-community, file: credentials/snmp.yaml}
`

// sampleFiles are the files of the example pack.
func sampleFiles() map[string][]byte {
	return map[string][]byte{
		"pipelines/hosts.pipeline": []byte("@dm:empty\n--> @dm:addrow region = '{{ region }}' & tenant = '{{tenant}}'\n"),
		"blueprints/web.yaml":      []byte("id: web\nowner: \"{{ owner }}\"\nsite: {{ site }}\n"),
		"dashboards/overview.yaml": []byte("name: overview\ntitle: Overview of {{ region }}\n"),
		"dashboards/customer.yaml": []byte("name: customer-view\ntitle: \"{{ customer_name }} ({{ customer_tag }})\"\n"),
		"credentials/snmp.yaml":    []byte("name: snmp-community\ntoken: \"{{api_token}}\"\n"),
		"README.md":                []byte("not named by the manifest\n"),
	}
}

// sampleManifestValue is sampleManifest parsed.
func sampleManifestValue(t testing.TB) Manifest {
	t.Helper()
	m, err := ParseManifest([]byte(sampleManifest))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// samplePack is the example pack as Write writes it.
func samplePack(t testing.TB) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, sampleManifestValue(t), sampleFiles()); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// tarEntry is an entry of an archive built by hand.
type tarEntry struct {
	name     string
	typ      byte
	data     string
	linkname string
}

// buildTar writes entries as a tar (not compressed).
func buildTar(t testing.TB, entries []tarEntry) []byte {
	t.Helper()
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for _, e := range entries {
		typ := e.typ
		if typ == 0 {
			typ = tar.TypeReg
		}
		hdr := &tar.Header{Name: e.name, Typeflag: typ, Mode: 0o644, Linkname: e.linkname, Size: int64(len(e.data))}
		switch typ {
		case tar.TypeXGlobalHeader:
			hdr = &tar.Header{Typeflag: typ, PAXRecords: map[string]string{"comment": "0123abcd"}}
		case tar.TypeReg:
		default:
			hdr.Size = 0
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(e.data)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// gz compresses data.
func gz(t testing.TB, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// writeTemp writes data to a file in a temporary folder.
func writeTemp(t testing.TB, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

package artifact

// EventEndpoint is the kind of an event gateway's ingestion endpoints
// (SPEC 6): what it listens on, for which input, into which stream. The
// gateways of the tenant (of the endpoint's site, when it names one)
// start, change and stop their listeners as these records change.
var EventEndpoint = &Kind{
	Name:   "event endpoint",
	Bucket: "fabric_art_event_endpoints",
	Key:    "name",
	YAML:   true,
	Toggle: true,
	Schema: `{
	"type": "object",
	"required": ["name", "type"],
	"properties": {
		"name": {"type": "string", "minLength": 1, "maxLength": 128},
		"description": {"type": "string"},
		"type": {"enum": ["syslog_tcp_go", "syslog_udp_go", "snmp_trap", "webhook"]},
		"address": {"type": "string"},
		"port": {"type": "integer", "minimum": 0, "maximum": 65535},
		"stream": {"type": "string", "minLength": 1, "maxLength": 128},
		"site": {"type": "string"},
		"enabled": {"type": "boolean"},
		"max_message_bytes": {"type": "integer", "minimum": 256, "maximum": 16777216},
		"batch_size": {"type": "integer", "minimum": 1, "maximum": 10000},
		"community": {"type": "string"},
		"protocol": {"enum": ["http", "https"]},
		"path": {"type": "string"},
		"tls_cert_file": {"type": "string"},
		"tls_key_file": {"type": "string"}
	}
}`,
	Columns: []string{"name", "type", "address", "port", "stream", "site", "enabled", "saved_time"},
}

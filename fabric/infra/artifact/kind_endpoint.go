package artifact

// EventEndpoint is the kind of an event gateway's ingestion endpoints
// (SPEC 6): what it listens on, for which input, into which stream. The
// gateways of the tenant (of the endpoint's site, when it names one)
// start, change and stop their listeners as these records change. A
// webhook's tls_cert_file and tls_key_file are paths inside the tenant's
// own directory, tls_cert_secret and tls_key_secret the names of secrets
// holding the PEM; max_connections and idle_timeout_seconds fence TCP
// connections, receive_buffer_bytes sizes a UDP socket's buffer.
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
		"tls_cert_file": {"type": "string", "maxLength": 4096},
		"tls_key_file": {"type": "string", "maxLength": 4096},
		"tls_cert_secret": {"type": "string", "minLength": 1, "maxLength": 256},
		"tls_key_secret": {"type": "string", "minLength": 1, "maxLength": 256},
		"max_connections": {"type": "integer", "minimum": 1, "maximum": 65536},
		"idle_timeout_seconds": {"type": "integer", "minimum": 1, "maximum": 86400},
		"receive_buffer_bytes": {"type": "integer", "minimum": 2048, "maximum": 268435456}
	}
}`,
	Columns: []string{"name", "type", "address", "port", "stream", "site", "enabled", "saved_time"},
}

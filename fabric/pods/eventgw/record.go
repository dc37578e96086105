package eventgw

import (
	"slices"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/lib/docjson"
)

// appendEvent appends an event's record (api.Event's JSON, the same
// members in the same order, empty optional ones left out) without
// reflection: the gateway writes one per event.
func appendEvent(b []byte, ev *api.Event) ([]byte, error) {
	str := func(name, v string, always bool) {
		if v == "" && !always {
			return
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, name...)
		b = append(b, `":`...)
		b = docjson.AppendString(b, v)
	}
	b = append(b, '{')
	str("timestamp", ev.Timestamp, true)
	str("received", ev.Received, true)
	str("endpoint", ev.Endpoint, true)
	str("type", ev.Type, true)
	str("source", ev.Source, true)
	str("host", ev.Host, true)
	str("severity", ev.Severity, true)
	str("message", ev.Message, true)
	str("raw", ev.Raw, true)
	str("format", ev.Format, false)
	str("facility", ev.Facility, false)
	str("app_name", ev.AppName, false)
	str("proc_id", ev.ProcID, false)
	str("msg_id", ev.MsgID, false)
	if len(ev.StructuredData) > 0 {
		b = append(b, `,"structured_data":{`...)
		ids := make([]string, 0, len(ev.StructuredData))
		for id := range ev.StructuredData {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for i, id := range ids {
			if i > 0 {
				b = append(b, ',')
			}
			b = docjson.AppendString(b, id)
			b = append(b, ':')
			b = appendStrings(b, ev.StructuredData[id])
		}
		b = append(b, '}')
	}
	str("trap_oid", ev.TrapOID, false)
	str("community", ev.Community, false)
	if len(ev.Vars) > 0 {
		b = append(b, `,"vars":`...)
		b = appendStrings(b, ev.Vars)
	}
	if ev.Body != nil {
		b = append(b, `,"body":`...)
		var err error
		if b, err = docjson.Append(b, ev.Body); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// appendStrings appends m as a JSON object, its keys sorted as
// encoding/json sorts them (nil as null, as it writes nil).
func appendStrings(b []byte, m map[string]string) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = docjson.AppendString(b, k)
		b = append(b, ':')
		b = docjson.AppendString(b, m[k])
	}
	return append(b, '}')
}

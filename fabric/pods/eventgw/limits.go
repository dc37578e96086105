package eventgw

import (
	"strconv"

	"github.com/fabricops/fabric/fabric/api"
)

// limitRows are the gateway's fences as the limits command lists them.
func limitRows(o Options) []api.LimitRow {
	const endpoint = "the endpoint's document"
	const options = "the event gateway's options"
	itoa := strconv.Itoa
	mb := func(n int64) string { return strconv.FormatInt(n>>20, 10) }
	return []api.LimitRow{
		{Scope: "endpoint", Limit: "max_connections", Value: itoa(DefaultEndpointConnections), SetBy: endpoint},
		{Scope: "endpoint", Limit: "idle_timeout_seconds", Value: itoa(int(DefaultIdleTimeout.Seconds())), SetBy: endpoint},
		{Scope: "endpoint", Limit: "receive_buffer_mb", Value: mb(DefaultReceiveBuffer), SetBy: endpoint + " (the host may give less)"},
		{Scope: "endpoint", Limit: "max_message_kb", Value: itoa(DefaultMaxMessageBytes >> 10), SetBy: endpoint},
		{Scope: "event gateway", Limit: "max_connections", Value: itoa(o.MaxConnections), SetBy: options},
		{Scope: "event gateway", Limit: "bytes_in_flight_mb", Value: mb(o.MaxBytesInFlight), SetBy: options},
		{Scope: "event gateway", Limit: "errors_stream_mb", Value: mb(api.GatewayErrorsMaxBytes), SetBy: "fixed"},
		{Scope: "event gateway", Limit: "errors_stream_hours", Value: itoa(int(api.GatewayErrorsMaxAge.Hours())), SetBy: "fixed"},
		{Scope: "event gateway", Limit: "error_input_kb", Value: itoa(api.GatewayErrorRawMaxBytes >> 10), SetBy: "fixed"},
	}
}

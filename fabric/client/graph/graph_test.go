package graph

import (
	"net/http"
	"testing"
)

// TestAPIErrorWithoutBody: an answer whose body the driver dropped is
// still one line saying what the server answered, not " (0)".
func TestAPIErrorWithoutBody(t *testing.T) {
	cases := []struct {
		err  APIError
		want string
	}{
		{APIError{Code: http.StatusForbidden}, "the graph database answered 403 forbidden"},
		{APIError{Code: 404, Num: 1203, Msg: "collection or view not found"}, "collection or view not found (1203)"},
	}
	for _, c := range cases {
		if got := c.err.Error(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.err, got, c.want)
		}
	}
}

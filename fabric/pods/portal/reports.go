package portal

import (
	"errors"
	"io"
	"net/http"
	"sort"

	"github.com/fabricops/fabric/fabric/api"
	"github.com/fabricops/fabric/fabric/infra/store"
)

// maxReportBytes bounds a pack compare report the portal serves.
const maxReportBytes = 64 << 20

// handleReport serves a pack compare report (report.html, which "pack
// compare --html" stores in the tenant's objects) as it was written. The
// page is sandboxed: it runs no script and reaches nothing.
func (s *Server) handleReport(w http.ResponseWriter, r *http.Request, ses *session) {
	rc, obj, err := ses.data.OpenObject(r.Context(), api.PackReportsFolder, r.PathValue("name"))
	if errors.Is(err, store.ErrNotFound) {
		http.Error(w, "no pack compare report named "+r.PathValue("name"), http.StatusNotFound)
		return
	} else if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer rc.Close()
	if obj.FileSize > maxReportBytes {
		http.Error(w, "the report is larger than the portal serves", http.StatusRequestEntityTooLarge)
		return
	}
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox")
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	_, _ = io.Copy(w, io.LimitReader(rc, maxReportBytes))
}

// Report is a pack compare report of the list.
type Report struct {
	Name      string `json:"name"`
	SavedTime string `json:"saved_time"`
}

// reports lists a session's pack compare reports, newest first.
func (s *Server) reports(r *http.Request, ses *session) []Report {
	objs, err := ses.data.Objects(r.Context(), api.PackReportsFolder)
	if err != nil {
		return nil
	}
	out := make([]Report, 0, len(objs))
	for _, o := range objs {
		out = append(out, Report{Name: o.Name, SavedTime: o.SavedTime})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name > out[j].Name }) // names begin with the time
	return out
}

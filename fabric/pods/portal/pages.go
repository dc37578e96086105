package portal

import (
	"encoding/json"
	"html/template"
	"net/http"
	"net/url"
	"strconv"

	"github.com/fabricops/fabric/fabric/infra/artifact"
)

func urlEscape(s string) string { return url.QueryEscape(s) }

// pageHead is the frame of every page.
const pageHead = `{{define "head"}}<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}} · Fabric portal</title><link rel="stylesheet" href="/static/portal.css"></head><body>
<header class="top"><a class="brand" href="/">Fabric portal</a>{{if .User}}<span class="user" id="user">{{.User}}</span>
<form method="post" action="/logout"><button type="submit" id="logout">Log out</button></form>{{end}}</header>
<main>{{end}}
{{define "foot"}}</main></body></html>{{end}}`

var pages = template.Must(template.New("pages").Funcs(template.FuncMap{"inc": func(i int) int { return i + 1 }}).Parse(pageHead + `
{{define "login"}}{{template "head" .}}
<form class="login" method="post" action="/login" id="login">
<h1>Log in</h1><p>With your tenant's user and password (the nats section of its network configuration).</p>
{{if .Error}}<p class="error" id="login-error">{{.Error}}</p>{{end}}
<label>User <input name="user" id="user-input" autocomplete="username" required></label>
<label>Password <input name="password" id="password-input" type="password" autocomplete="current-password" required></label>
<input type="hidden" name="next" value="{{.Next}}">
<button type="submit" id="login-submit">Log in</button></form>
{{template "foot" .}}{{end}}

{{define "index"}}{{template "head" .}}
<h1>Dashboards</h1>
{{if .Dashboards}}<table class="list" id="dashboards"><thead><tr><th>Name</th><th>Type</th><th>Label</th><th>Description</th><th>Enabled</th><th>Saved</th></tr></thead><tbody>
{{range .Dashboards}}<tr class="dashboard" data-name="{{.Name}}" data-type="{{.Type}}" data-enabled="{{.Enabled}}"><td><a href="/d/{{.Name}}">{{.Name}}</a></td><td>{{.Type}}{{if .App}} of <a href="/d/{{.App}}">{{.App}}</a>{{end}}</td><td>{{.Label}}</td><td>{{.Description}}</td><td>{{if .Enabled}}yes{{else}}no{{end}}</td><td>{{.SavedTime}}</td></tr>
{{end}}</tbody></table>{{else}}<p class="empty" id="no-dashboards">No dashboards yet: add one with <code>client dashboard add --file FILE</code>.</p>{{end}}
<h1>Dashboard groups</h1>
{{if .Groups}}<div id="groups">{{range .Groups}}<section class="group" data-name="{{.Name}}" data-enabled="{{.Enabled}}"><h2>{{if .Label}}{{.Label}}{{else}}{{.Name}}{{end}}{{if not .Enabled}} <span class="badge">disabled</span>{{end}}</h2>
{{if .Description}}<p>{{.Description}}</p>{{end}}{{if .Users}}<p class="users">Users: {{.Users}}</p>{{end}}
<ul>{{range .DashboardList}}<li><a class="group-dashboard" href="/d/{{.Name}}">{{.Name}}</a></li>{{end}}</ul>{{if .SavedTime}}<p class="saved">Saved {{.SavedTime}}</p>{{end}}</section>{{end}}</div>
{{else}}<p class="empty" id="no-groups">No dashboard groups.</p>{{end}}
{{if .Deployments}}<h1>Deployment maps</h1><ul id="maps">{{range .Deployments}}<li><a class="map" href="/maps/{{.}}">{{.}}</a> (<a class="map-all" href="/maps/{{.}}?all=1">with the system streams</a>)</li>{{end}}</ul>{{end}}
{{if .Reports}}<h1>Pack compare reports</h1><ul id="reports">{{range .Reports}}<li><a class="report" href="/reports/{{.Name}}">{{.Name}}</a> <span class="saved">{{.SavedTime}}</span></li>{{end}}</ul>{{end}}
{{template "foot" .}}{{end}}

{{define "dashboard"}}{{template "head" .}}
{{if .Pages}}<nav class="app-pages" id="app-pages" data-app="{{.App}}">{{range $i, $p := .Pages}}<a class="app-page{{if eq $i $.Current}} current{{end}}" href="/d/{{$.App}}?page={{inc $i}}">{{if $p.Label}}{{$p.Label}}{{else}}{{$p.Name}}{{end}}</a>{{end}}</nav>{{end}}
<div id="dashboard" data-name="{{.Name}}" data-def="{{.Def}}"></div>
<script src="/static/portal.js"></script>
{{template "foot" .}}{{end}}
`))

// render writes a page.
func (s *Server) render(w http.ResponseWriter, status int, name string, data map[string]any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if err := pages.ExecuteTemplate(w, name, data); err != nil {
		s.o.Logf("portal: page %s: %v", name, err)
	}
}

func (s *Server) loginPage(w http.ResponseWriter, status int, msg, next string) {
	s.render(w, status, "login", map[string]any{"Title": "Log in", "Error": msg, "Next": safeNext(next)})
}

func (s *Server) handleLoginPage(w http.ResponseWriter, r *http.Request) {
	s.loginPage(w, http.StatusOK, "", r.URL.Query().Get("next"))
}

func (s *Server) handleIndex(w http.ResponseWriter, r *http.Request, ses *session) {
	ds, gs, err := s.listing(r.Context(), ses)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	s.render(w, http.StatusOK, "index", map[string]any{"Title": "Dashboards", "User": ses.user, "Dashboards": ds, "Groups": gs, "Reports": s.reports(r, ses), "Deployments": s.deployments(r, ses)})
}

// handleDashboard draws a dashboard: the page carries its definition,
// which portal.js draws, each widget reading its stream live. An app
// shows its pages as navigation and draws the page asked (?page=N, from
// 1).
func (s *Server) handleDashboard(w http.ResponseWriter, r *http.Request, ses *session) {
	name := r.PathValue("name")
	rec, err := ses.repo.Get(r.Context(), artifact.Dashboard, name)
	if err != nil {
		http.Error(w, err.Error(), errStatus(err))
		return
	}
	data := map[string]any{"Title": name, "User": ses.user, "Name": name}
	if t, _ := rec.Doc.String("dashboard_type"); t == "app" {
		var ps []struct {
			Name  string `json:"name"`
			Label string `json:"label"`
		}
		_ = json.Unmarshal(rec.Doc.Raw("dashboard_pages"), &ps)
		if len(ps) == 0 {
			http.Error(w, "app "+name+" has no pages", http.StatusNotFound)
			return
		}
		i := 1
		if p := r.URL.Query().Get("page"); p != "" {
			if i, err = strconv.Atoi(p); err != nil || i < 1 || i > len(ps) {
				http.Error(w, "no page "+p+" of app "+name, http.StatusNotFound)
				return
			}
		}
		data["App"], data["Pages"], data["Current"] = name, ps, i-1
		page, err := ses.repo.Get(r.Context(), artifact.Dashboard, ps[i-1].Name)
		if err != nil {
			http.Error(w, err.Error(), errStatus(err))
			return
		}
		rec = page
		data["Name"] = ps[i-1].Name
	}
	data["Def"] = string(rec.Doc.JSON())
	s.render(w, http.StatusOK, "dashboard", data)
}

package engine

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// This file compiles grok patterns (as Logstash writes them) to RE2
// regexes. The common patterns are rewritten without the look-arounds RE2
// lacks, so a few match slightly more loosely than Logstash's.

var grokPatterns = map[string]string{
	"USERNAME":          `[a-zA-Z0-9._-]+`,
	"USER":              `%{USERNAME}`,
	"EMAILLOCALPART":    `[a-zA-Z0-9!#$%&'*+/=?^_{|}~-]+(?:\.[a-zA-Z0-9!#$%&'*+/=?^_{|}~-]+)*`,
	"EMAILADDRESS":      `%{EMAILLOCALPART}@%{HOSTNAME}`,
	"INT":               `[+-]?[0-9]+`,
	"BASE10NUM":         `[+-]?(?:[0-9]+(?:\.[0-9]+)?|\.[0-9]+)`,
	"NUMBER":            `%{BASE10NUM}`,
	"BASE16NUM":         `[+-]?(?:0[xX])?[0-9A-Fa-f]+`,
	"POSINT":            `\b[1-9][0-9]*\b`,
	"NONNEGINT":         `\b[0-9]+\b`,
	"WORD":              `\b\w+\b`,
	"NOTSPACE":          `\S+`,
	"SPACE":             `\s*`,
	"DATA":              `.*?`,
	"GREEDYDATA":        `.*`,
	"QUOTEDSTRING":      `"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|` + "`(?:[^`\\\\]|\\\\.)*`",
	"QS":                `%{QUOTEDSTRING}`,
	"UUID":              `[A-Fa-f0-9]{8}-(?:[A-Fa-f0-9]{4}-){3}[A-Fa-f0-9]{12}`,
	"CISCOMAC":          `(?:[A-Fa-f0-9]{4}\.){2}[A-Fa-f0-9]{4}`,
	"WINDOWSMAC":        `(?:[A-Fa-f0-9]{2}-){5}[A-Fa-f0-9]{2}`,
	"COMMONMAC":         `(?:[A-Fa-f0-9]{2}:){5}[A-Fa-f0-9]{2}`,
	"MAC":               `%{CISCOMAC}|%{WINDOWSMAC}|%{COMMONMAC}`,
	"IPV4":              `(?:(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])\.){3}(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])`,
	"IPV6":              ipv6,
	"IP":                `%{IPV6}|%{IPV4}`,
	"HOSTNAME":          `\b[0-9A-Za-z][0-9A-Za-z-]{0,62}(?:\.[0-9A-Za-z][0-9A-Za-z-]{0,62})*\.?`,
	"IPORHOST":          `%{IP}|%{HOSTNAME}`,
	"HOSTPORT":          `%{IPORHOST}:%{POSINT}`,
	"URIPROTO":          `[A-Za-z][A-Za-z0-9+\-.]*`,
	"URIHOST":           `%{IPORHOST}(?::%{POSINT})?`,
	"URIPATH":           `(?:/[A-Za-z0-9$.+!*'(){},~:;=@#%&_\-]*)+`,
	"URIPARAM":          `\?[A-Za-z0-9$.+!*'|(){},~@#%&/=:;_?\-\[\]<>]*`,
	"URIPATHPARAM":      `%{URIPATH}(?:%{URIPARAM})?`,
	"URI":               `%{URIPROTO}://(?:%{USER}(?::[^@]*)?@)?(?:%{URIHOST})?(?:%{URIPATHPARAM})?`,
	"PATH":              `%{UNIXPATH}|%{WINPATH}`,
	"UNIXPATH":          `(?:/[\w_%!$@:.,+~-]*)+`,
	"WINPATH":           `(?:[A-Za-z]+:|\\)(?:\\[^\\?*]*)+`,
	"MONTH":             `\b(?:[Jj]an(?:uary)?|[Ff]eb(?:ruary)?|[Mm]ar(?:ch)?|[Aa]pr(?:il)?|[Mm]ay|[Jj]un(?:e)?|[Jj]ul(?:y)?|[Aa]ug(?:ust)?|[Ss]ep(?:tember)?|[Oo]ct(?:ober)?|[Nn]ov(?:ember)?|[Dd]ec(?:ember)?)\b`,
	"MONTHNUM":          `0?[1-9]|1[0-2]`,
	"MONTHDAY":          `0[1-9]|[12][0-9]|3[01]|[1-9]`,
	"DAY":               `\b(?:Mon(?:day)?|Tue(?:sday)?|Wed(?:nesday)?|Thu(?:rsday)?|Fri(?:day)?|Sat(?:urday)?|Sun(?:day)?)\b`,
	"YEAR":              `(?:\d\d){1,2}`,
	"HOUR":              `2[0123]|[01]?[0-9]`,
	"MINUTE":            `[0-5][0-9]`,
	"SECOND":            `(?:[0-5]?[0-9]|60)(?:[:.,][0-9]+)?`,
	"TIME":              `%{HOUR}:%{MINUTE}(?::%{SECOND})?`,
	"ISO8601_TIMEZONE":  `Z|[+-]%{HOUR}(?::?%{MINUTE})`,
	"TIMESTAMP_ISO8601": `%{YEAR}-%{MONTHNUM}-%{MONTHDAY}[T ]%{HOUR}:?%{MINUTE}(?::?%{SECOND})?(?:%{ISO8601_TIMEZONE})?`,
	"DATE_US":           `%{MONTHNUM}[/-]%{MONTHDAY}[/-]%{YEAR}`,
	"DATE_EU":           `%{MONTHDAY}[./-]%{MONTHNUM}[./-]%{YEAR}`,
	"DATE":              `%{DATE_US}|%{DATE_EU}`,
	"DATESTAMP":         `%{DATE}[- ]%{TIME}`,
	"HTTPDATE":          `%{MONTHDAY}/%{MONTH}/%{YEAR}:%{TIME} %{INT}`,
	"SYSLOGTIMESTAMP":   `%{MONTH} +%{MONTHDAY} %{TIME}`,
	"PROG":              `[\x21-\x5a\x5c\x5e-\x7e]+`,
	"SYSLOGPROG":        `%{PROG:program}(?:\[%{POSINT:pid}\])?`,
	"SYSLOGHOST":        `%{IPORHOST}`,
	"SYSLOGBASE":        `%{SYSLOGTIMESTAMP:timestamp} %{SYSLOGHOST:logsource} %{SYSLOGPROG}:`,
	"LOGLEVEL":          `[Aa]lert|ALERT|[Tt]race|TRACE|[Dd]ebug|DEBUG|[Nn]otice|NOTICE|[Ii]nfo(?:rmation)?|INFO(?:RMATION)?|[Ww]arn(?:ing)?|WARN(?:ING)?|[Ee]rr(?:or)?|ERR(?:OR)?|[Cc]rit(?:ical)?|CRIT(?:ICAL)?|[Ff]atal|FATAL|[Ss]evere|SEVERE|EMERG(?:ENCY)?|[Ee]merg(?:ency)?`,
	"HTTPDUSER":         `%{EMAILADDRESS}|%{USER}`,
	"COMMONAPACHELOG":   `%{IPORHOST:clientip} %{HTTPDUSER:ident} %{USER:auth} \[%{HTTPDATE:timestamp}\] "(?:%{WORD:verb} %{NOTSPACE:request}(?: HTTP/%{NUMBER:httpversion})?|%{DATA:rawrequest})" %{NUMBER:response} (?:%{NUMBER:bytes}|-)`,
	"COMBINEDAPACHELOG": `%{COMMONAPACHELOG} %{QS:referrer} %{QS:agent}`,
}

// ipv6 matches the full and compressed forms of IPv6 addresses, with an
// optional embedded IPv4 address and zone. RE2 prefers the first
// alternative that matches, so the forms with an embedded IPv4 address
// come first, then the compressed forms by decreasing length of their
// part after "::".
const ipv6 = `(?:` +
	`(?:[0-9A-Fa-f]{1,4}:){7}[0-9A-Fa-f]{1,4}|` +
	`(?:[0-9A-Fa-f]{1,4}:){6}%{IPV4}|` +
	`::(?:[fF]{4}(?::0{1,4})?:)?%{IPV4}|` +
	`(?:[0-9A-Fa-f]{1,4}:){1,4}:%{IPV4}|` +
	`[0-9A-Fa-f]{1,4}:(?::[0-9A-Fa-f]{1,4}){1,6}|` +
	`(?:[0-9A-Fa-f]{1,4}:){1,2}(?::[0-9A-Fa-f]{1,4}){1,5}|` +
	`(?:[0-9A-Fa-f]{1,4}:){1,3}(?::[0-9A-Fa-f]{1,4}){1,4}|` +
	`(?:[0-9A-Fa-f]{1,4}:){1,4}(?::[0-9A-Fa-f]{1,4}){1,3}|` +
	`(?:[0-9A-Fa-f]{1,4}:){1,5}(?::[0-9A-Fa-f]{1,4}){1,2}|` +
	`(?:[0-9A-Fa-f]{1,4}:){1,6}:[0-9A-Fa-f]{1,4}|` +
	`(?:[0-9A-Fa-f]{1,4}:){1,7}:|` +
	`:(?:(?::[0-9A-Fa-f]{1,4}){1,7}|:)` +
	`)(?:%[0-9A-Za-z]+)?`

// grokPatternNames returns the names of the known patterns, sorted.
func grokPatternNames() []string {
	out := make([]string, 0, len(grokPatterns))
	for n := range grokPatterns {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// grokField is a named part of a grok pattern.
type grokField struct {
	name  string
	kind  kind // kStr, kInt or kFloat
	group int  // its group in the regex
}

// grok is a compiled grok pattern.
type grok struct {
	re     *regexp.Regexp
	fields []grokField // one per name, in order
	all    []grokField // every named reference
}

var grokRef = regexp.MustCompile(`%\{([A-Za-z0-9_]+)(?::([^:}]+))?(?::([A-Za-z]+))?\}`)

// compileGrok compiles a pattern: %{NAME}, %{NAME:field} or
// %{NAME:field:int|float} references among RE2 syntax. A field named
// twice keeps its first match.
func compileGrok(pattern string) (*grok, error) {
	g := &grok{}
	n := 0
	var expand func(p string, depth int) (string, error)
	expand = func(p string, depth int) (string, error) {
		if depth > 16 {
			return "", fmt.Errorf("patterns nest too deep")
		}
		var err error
		out := grokRef.ReplaceAllStringFunc(p, func(ref string) string {
			if err != nil {
				return ""
			}
			m := grokRef.FindStringSubmatch(ref)
			def, ok := grokPatterns[m[1]]
			if !ok {
				err = fmt.Errorf("unknown pattern %%{%s}", m[1])
				return ""
			}
			sub, e := expand(def, depth+1)
			if e != nil {
				err = e
				return ""
			}
			if m[2] == "" {
				return "(?:" + sub + ")"
			}
			k := kStr
			switch strings.ToLower(m[3]) {
			case "":
			case "int", "integer", "long":
				k = kInt
			case "float", "double", "number":
				k = kFloat
			default:
				err = fmt.Errorf("unknown type '%s' of %%{%s:%s} (int or float)", m[3], m[1], m[2])
				return ""
			}
			n++
			g.fields = append(g.fields, grokField{name: m[2], kind: k})
			return "(?P<g" + strconv.Itoa(n) + ">" + sub + ")"
		})
		return out, err
	}
	src, err := expand(pattern, 0)
	if err != nil {
		return nil, err
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, err
	}
	g.re = re
	for i := range g.fields {
		g.fields[i].group = re.SubexpIndex("g" + strconv.Itoa(i+1))
	}
	// one column per field name
	var uniq []grokField
	seen := map[string]bool{}
	for _, f := range g.fields {
		if !seen[f.name] {
			seen[f.name] = true
			uniq = append(uniq, f)
		}
	}
	all := g.fields
	g.fields = uniq
	g.all = all
	return g, nil
}

// match returns the values of the fields in s, or nil when the pattern
// does not match.
func (g *grok) match(s string) []any {
	m := g.re.FindStringSubmatchIndex(s)
	if m == nil {
		return nil
	}
	out := make([]any, len(g.fields))
	for i, f := range g.fields {
		for _, a := range g.all {
			if a.name != f.name || m[2*a.group] < 0 {
				continue
			}
			out[i] = grokValue(s[m[2*a.group]:m[2*a.group+1]], a.kind)
			break
		}
	}
	return out
}

func grokValue(s string, k kind) any {
	switch k {
	case kInt:
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return int64(f)
		}
		return nil
	case kFloat:
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return f
		}
		return nil
	}
	return s
}

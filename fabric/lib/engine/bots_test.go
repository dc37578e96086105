package engine

import (
	"context"
	"crypto/md5"
	"crypto/sha1"
	"encoding/hex"
	"strings"
	"testing"
	"time"
)

var testNow = time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)

// fixture returns an engine over a store holding:
//
//	hosts: host, cpu (float), mem (int, one null), site, tags (one null)
//	owners: name, owner, team
//	logs: line
//	times: ts (text), epoch (int), at (timestamp)
func fixture(t testing.TB) (*Engine, *memStore) {
	s := newMemStore()
	s.datasets["hosts"] = mkFrame(t, []string{"host", "cpu", "mem", "site", "tags"},
		[]any{"web-1", 93.5, 70, "east", "a, b"},
		[]any{"web-2", 40.0, 90, "west", nil},
		[]any{"db-1", 97.25, nil, "east", "c"})
	s.datasets["owners"] = mkFrame(t, []string{"name", "owner", "team"},
		[]any{"web-1", "ann", "web"},
		[]any{"db-1", "bob", "data"},
		[]any{"db-1", "carl", "dup"})
	s.datasets["logs"] = mkFrame(t, []string{"line"},
		[]any{`10.0.0.1 GET /index.html?x=1 200 ERROR user=ann@example.com`},
		[]any{`2001:db8::1 POST /api 503 WARN user=bob@example.com`},
		[]any{`garbage`})
	s.datasets["times"] = mkFrame(t, []string{"ts", "epoch", "at"},
		[]any{"2024-01-02 03:04:05", 1704164645, time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)},
		[]any{"05/Feb/2024 10:00", 1707127200000, nil})
	s.lists["blocked"] = []string{"10.0.0.1", "10.0.0.2"}
	s.files["/data/x.csv"] = mkFrame(t, []string{"a"}, []any{1}, []any{2})
	return &Engine{Store: s, Now: func() time.Time { return testNow }}, s
}

type botCase struct {
	name     string
	pipeline string
	want     string // dump of the output
	err      string // substring of the error, instead
}

func runBotCases(t *testing.T, cases []botCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, _ := fixture(t)
			out, err := runText(t, e, c.pipeline)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error = %v, want one containing %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := dump(out); got != c.want {
				t.Errorf("output:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}

const hostsDump = "host:object,cpu:float64,mem:int64,site:object,tags:object\n" +
	"web-1|93.5|70|east|a, b\nweb-2|40.0|90|west|~\ndb-1|97.25|~|east|c"

func TestRowBots(t *testing.T) {
	runBotCases(t, []botCase{
		{name: "recall", pipeline: `@dm:recall name = 'hosts'`, want: hostsDump},
		{name: "empty", pipeline: `@dm:recall name = 'hosts' --> @dm:empty`, want: ""},
		{name: "addrow", pipeline: `@dm:empty --> @dm:addrow host = 'web-1' & cpu = 93.5
			--> @dm:addrow host = "web-2" & cpu = 40 & up = true & note = '93'`,
			want: "host:object,cpu:float64,up:bool,note:object\nweb-1|93.5|~|~\nweb-2|40.0|true|93"},
		{name: "addrow to data", pipeline: `@dm:recall name = 'hosts' --> @dm:addrow host = 'new' & mem = 1 --> @dm:tail n = 1`,
			want: "host:object,cpu:float64,mem:int64,site:object,tags:object\nnew|~|1|~|~"},
		{name: "head", pipeline: `@dm:recall name = 'hosts' --> @dm:head n = 1`,
			want: "host:object,cpu:float64,mem:int64,site:object,tags:object\nweb-1|93.5|70|east|a, b"},
		{name: "head default", pipeline: `@dm:recall name = 'hosts' --> @dm:head`, want: hostsDump},
		{name: "tail", pipeline: `@dm:recall name = 'hosts' --> @dm:tail n = 2 --> @dm:selectcolumns include = 'host'`,
			want: "host:object\nweb-2\ndb-1"},
		{name: "sample all", pipeline: `@dm:recall name = 'hosts' --> @dm:sample frac = 1 & seed = 3`, want: hostsDump},
		{name: "sample none", pipeline: `@dm:recall name = 'hosts' --> @dm:sample n = 0 --> @dm:selectcolumns include = 'host'`,
			want: "host:object"},
		{name: "sort desc", pipeline: `@dm:recall name = 'hosts' --> @dm:sort columns = 'cpu' & order = 'desc' --> @dm:selectcolumns include = 'host|cpu'`,
			want: "host:object,cpu:float64\ndb-1|97.25\nweb-1|93.5\nweb-2|40.0"},
		{name: "sort two columns", pipeline: `@dm:recall name = 'hosts' --> @dm:sort columns = 'site, host' --> @dm:selectcolumns include = 'host|site'`,
			want: "host:object,site:object\ndb-1|east\nweb-1|east\nweb-2|west"},
		{name: "sort missing column", pipeline: `@dm:recall name = 'hosts' --> @dm:sort columns = 'cpux'`,
			err: "step 2 (@dm:sort): parameter 'columns': no column 'cpux' (columns: host, cpu, mem, site, tags)"},
		{name: "dedup columns", pipeline: `@dm:recall name = 'hosts' --> @dm:dedup columns = 'site' --> @dm:selectcolumns include = 'host'`,
			want: "host:object\nweb-1\nweb-2"},
		{name: "dedup all", pipeline: `@dm:empty --> @dm:addrow a = 1 & b = 'x' --> @dm:addrow a = 1 & b = 'x' --> @dm:addrow a = 1 & b = 'y' --> @dm:addrow a = 1.0 & b = 'x' --> @dm:dedup`,
			want: "a:float64,b:object\n1.0|x\n1.0|y"},
		{name: "dropnull any", pipeline: `@dm:recall name = 'hosts' --> @dm:dropnull --> @dm:selectcolumns include = 'host'`,
			want: "host:object\nweb-1"},
		{name: "dropnull columns", pipeline: `@dm:recall name = 'hosts' --> @dm:dropnull columns = 'mem' --> @dm:selectcolumns include = 'host|mem'`,
			want: "host:object,mem:int64\nweb-1|70\nweb-2|90"},
		{name: "dropnull all", pipeline: `@dm:recall name = 'hosts' --> @dm:dropnull columns = 'mem,tags' & how = 'all' --> @dm:selectcolumns include = 'host'`,
			want: "host:object\nweb-1\nweb-2\ndb-1"},
		{name: "concat", pipeline: `@dm:recall name = 'owners' --> @dm:head n = 1 --> @dm:concat names = 'hosts' --> @dm:selectcolumns include = 'name|host|mem'`,
			want: "name:object,host:object,mem:int64\nweb-1|~|~\n~|web-1|70\n~|web-2|90\n~|db-1|~"},
		{name: "concat same schema", pipeline: `@dm:recall name = 'hosts' --> @dm:concat names = 'hosts,hosts' --> @dm:selectcolumns include = 'mem'`,
			want: "mem:int64\n70\n90\n~\n70\n90\n~\n70\n90\n~"},
		{name: "concat missing", pipeline: `@dm:concat names = 'hosts, nope'`,
			err: "step 1 (@dm:concat): parameter 'names': no dataset named 'nope'"},
	})
}

func TestSampleIsRepeatable(t *testing.T) {
	e, s := fixture(t)
	rows := make([][]any, 100)
	for i := range rows {
		rows[i] = []any{i}
	}
	s.datasets["nums"] = mkFrame(t, []string{"n"}, rows...)
	a, err := runText(t, e, `@dm:recall name = 'nums' --> @dm:sample n = 10 & seed = 42`)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := runText(t, e, `@dm:recall name = 'nums' --> @dm:sample n = 10 & seed = 42`)
	if dump(a) != dump(b) {
		t.Errorf("same seed, different samples:\n%s\n%s", dump(a), dump(b))
	}
	if a.NumRows() != 10 {
		t.Fatalf("%d rows, want 10", a.NumRows())
	}
	vals, _ := a.Column("n")
	for i := 1; i < len(vals); i++ {
		if vals[i].(int64) <= vals[i-1].(int64) {
			t.Errorf("sample not in original order: %v", vals)
		}
	}
	c, _ := runText(t, e, `@dm:recall name = 'nums' --> @dm:sample frac = 0.25`)
	if c.NumRows() != 25 {
		t.Errorf("frac 0.25 of 100: %d rows", c.NumRows())
	}
}

func TestColumnBots(t *testing.T) {
	runBotCases(t, []botCase{
		{name: "selectcolumns include", pipeline: `@dm:recall name = 'hosts' --> @dm:selectcolumns include = 'c.*|host'`,
			want: "host:object,cpu:float64\nweb-1|93.5\nweb-2|40.0\ndb-1|97.25"},
		{name: "selectcolumns exclude", pipeline: `@dm:recall name = 'hosts' --> @dm:selectcolumns exclude = 'host|cpu|tags'`,
			want: "mem:int64,site:object\n70|east\n90|west\n~|east"},
		{name: "rename", pipeline: `@dm:recall name = 'hosts' --> @dm:rename-columns name = 'host' & load = 'cpu' --> @dm:selectcolumns include = 'name|load'`,
			want: "name:object,load:float64\nweb-1|93.5\nweb-2|40.0\ndb-1|97.25"},
		{name: "rename backquoted", pipeline: "@dm:recall name = 'hosts' --> @dm:rename-columns `Host Name` = 'host' --> @dm:selectcolumns include = 'Host Name'",
			want: "Host Name:object\nweb-1\nweb-2\ndb-1"},
		{name: "rename missing", pipeline: `@dm:recall name = 'hosts' --> @dm:rename-columns a = 'nope'`,
			err: "step 2 (@dm:rename-columns): parameter 'a': no column 'nope'"},
		{name: "rename clash", pipeline: `@dm:recall name = 'hosts' --> @dm:rename-columns cpu = 'host'`,
			err: "two columns named 'cpu'"},
		{name: "add-missing-columns", pipeline: `@dm:recall name = 'hosts' --> @dm:head n = 2 --> @dm:add-missing-columns columns = 'host, owner, rack' & value = 'none' --> @dm:selectcolumns include = 'host|owner|rack'`,
			want: "host:object,owner:object,rack:object\nweb-1|none|none\nweb-2|none|none"},
		{name: "add-missing-columns null", pipeline: `@dm:recall name = 'hosts' --> @dm:head n = 1 --> @dm:add-missing-columns columns = 'x' --> @dm:selectcolumns include = 'x'`,
			want: "x:object\n~"},
		{name: "fixnull", pipeline: `@dm:recall name = 'hosts' --> @dm:fixnull columns = 'mem' & value = '0' --> @dm:selectcolumns include = 'mem'`,
			want: "mem:int64\n70\n90\n0"},
		{name: "fixnull all", pipeline: `@dm:recall name = 'hosts' --> @dm:fixnull value = 'n/a' --> @dm:selectcolumns include = 'mem|tags'`,
			want: "mem:object,tags:object\n70|a, b\n90|n/a\nn/a|c"},
		{name: "to-type int", pipeline: `@dm:recall name = 'hosts' --> @dm:to-type columns = 'cpu' & type = 'int' --> @dm:selectcolumns include = 'cpu'`,
			want: "cpu:int64\n93\n40\n97"},
		{name: "to-type str", pipeline: `@dm:recall name = 'hosts' --> @dm:to-type columns = 'cpu,mem' & type = 'str' --> @dm:selectcolumns include = 'cpu|mem'`,
			want: "cpu:object,mem:object\n93.5|70\n40.0|90\n97.25|~"},
		{name: "to-type float and bool", pipeline: `@dm:empty --> @dm:addrow a = '1.5' & b = 'yes' --> @dm:addrow a = '2' & b = 0 --> @dm:to-type columns = 'a' & type = 'float' --> @dm:to-type columns = 'b' & type = 'bool'`,
			want: "a:float64,b:bool\n1.5|true\n2.0|false"},
		{name: "to-type datetime", pipeline: `@dm:recall name = 'times' --> @dm:to-type columns = 'ts, epoch' & type = 'datetime' & on_error = 'null' --> @dm:selectcolumns include = 'ts|epoch'`,
			want: "ts:datetime64[ns],epoch:datetime64[ns]\n2024-01-02T03:04:05Z|2024-01-02T03:04:05Z\n~|2024-02-05T10:00:00Z"},
		{name: "to-type fails", pipeline: `@dm:recall name = 'hosts' --> @dm:to-type columns = 'host' & type = 'int'`,
			err: "step 2 (@dm:to-type): parameter 'columns': row 0, column 'host': cannot convert 'web-1' to int"},
		{name: "to-type bad type", pipeline: `@dm:recall name = 'hosts' --> @dm:to-type columns = 'host' & type = 'integer'`,
			err: "step 2 (@dm:to-type): parameter 'type' must be one of 'int', 'float', 'str', 'bool', 'datetime', not 'integer'"},
	})
}

func TestMapAndEval(t *testing.T) {
	runBotCases(t, []botCase{
		{name: "fixed", pipeline: `@dm:recall name = 'hosts' --> @dm:map to = 'n' & func = 'fixed' & value = 5 --> @dm:selectcolumns include = 'n'`,
			want: "n:int64\n5\n5\n5"},
		{name: "copy", pipeline: `@dm:recall name = 'hosts' --> @dm:map from = 'mem' & to = 'm2' & func = 'copy' --> @dm:selectcolumns include = 'm2'`,
			want: "m2:int64\n70\n90\n~"},
		{name: "join", pipeline: `@dm:recall name = 'hosts' --> @dm:map from = 'host, site, tags' & to = 'k' & func = 'join' & sep = '/' --> @dm:selectcolumns include = 'k'`,
			want: "k:object\nweb-1/east/a, b\nweb-2/west\ndb-1/east/c"},
		{name: "md5 in place", pipeline: `@dm:recall name = 'hosts' --> @dm:head n = 1 --> @dm:map from = 'site' & func = 'md5' --> @dm:selectcolumns include = 'site'`,
			want: "site:object\n" + md5hex("east")},
		{name: "sha1", pipeline: `@dm:recall name = 'hosts' --> @dm:head n = 1 --> @dm:map from = 'site' & to = 'h' & func = 'sha1' --> @dm:selectcolumns include = 'h'`,
			want: "h:object\n" + sha1hex("east")},
		{name: "strip lower upper len", pipeline: `@dm:empty --> @dm:addrow s = '  Mixed Case ' --> @dm:map from = 's' & to = 'st' & func = 'strip'
			--> @dm:map from = 'st' & to = 'lo' & func = 'lower' --> @dm:map from = 'st' & to = 'up' & func = 'upper' --> @dm:map from = 's' & to = 'n' & func = 'len'`,
			want: "s:object,st:object,lo:object,up:object,n:int64\n  Mixed Case |Mixed Case|mixed case|MIXED CASE|13"},
		{name: "time_now", pipeline: `@dm:empty --> @dm:addrow a = 1 --> @dm:map to = 'now' & func = 'time_now'`,
			want: "a:int64,now:datetime64[ns]\n1|2024-05-06T07:08:09Z"},
		{name: "replace and split", pipeline: `@dm:empty --> @dm:addrow s = 'a-1,b-2' --> @dm:map from = 's' & to = 'r' & func = 'replace' & pattern = '([a-z])-(\d)' & repl = '${2}${1}'
			--> @dm:map from = 's' & to = 'last' & func = 'split' & index = -1`,
			want: "s:object,r:object,last:object\na-1,b-2|1a,2b|b-2"},
		{name: "null gives null", pipeline: `@dm:recall name = 'hosts' --> @dm:map from = 'tags' & to = 'u' & func = 'upper' --> @dm:selectcolumns include = 'u'`,
			want: "u:object\nA, B\n~\nC"},
		{name: "map needs value", pipeline: `@dm:map to = 'x' & func = 'fixed'`,
			err: "step 1 (@dm:map): parameter 'value' is required by func 'fixed'"},
		{name: "map bad func", pipeline: `@dm:map from = 'x' & func = 'nope'`,
			err: "step 1 (@dm:map): parameter 'func' must be one of 'fixed'"},
		{name: "eval", pipeline: `@dm:recall name = 'hosts' --> @dm:eval level = "'hot' if cpu > 90 else 'ok'" & twice = 'mem * 2 if mem != None else None' & tag = 'level + "-" + host'
			--> @dm:selectcolumns include = 'level|twice|tag'`,
			want: "level:object,twice:int64,tag:object\nhot|140|hot-web-1\nok|180|ok-web-2\nhot|~|hot-db-1"},
		{name: "eval replaces and uses math", pipeline: `@dm:recall name = 'hosts' --> @dm:eval cpu = 'math.floor(cpu)' --> @dm:selectcolumns include = 'cpu'`,
			want: "cpu:int64\n93\n40\n97"},
		{name: "eval syntax error", pipeline: `@dm:eval x = '1 +'`,
			err: "step 1 (@dm:eval): parameter 'x' is not a valid expression"},
		{name: "eval unknown column", pipeline: `@dm:recall name = 'hosts' --> @dm:eval x = 'nope + 1'`,
			err: "step 2 (@dm:eval): parameter 'x' cannot be evaluated"},
		{name: "eval too long", pipeline: `@dm:empty --> @dm:addrow a = 1 --> @dm:eval x = 'len([i for i in range(2000000)])'`,
			err: "step 3 (@dm:eval): parameter 'x': row 0: Starlark computation cancelled: too many steps"},
		{name: "eval runtime error", pipeline: `@dm:recall name = 'hosts' --> @dm:eval x = 'mem + 1'`,
			err: "step 2 (@dm:eval): parameter 'x': row 2: unknown binary op: NoneType + int"},
	})
}

func TestTextBots(t *testing.T) {
	runBotCases(t, []botCase{
		{name: "explode", pipeline: `@dm:recall name = 'hosts' --> @dm:explode column = 'tags' --> @dm:selectcolumns include = 'host|tags'`,
			want: "host:object,tags:object\nweb-1|a\nweb-1|b\nweb-2|~\ndb-1|c"},
		{name: "implode", pipeline: `@dm:recall name = 'hosts' --> @dm:implode column = 'host' & group_by = 'site' & sep = ';'`,
			want: "host:object,site:object\nweb-1;db-1|east\nweb-2|west"},
		{name: "implode default groups", pipeline: `@dm:recall name = 'hosts' --> @dm:explode column = 'tags' --> @dm:implode column = 'tags' & sep = ', '`,
			want: hostsDump},
		{name: "extract", pipeline: `@dm:recall name = 'logs' --> @dm:extract column = 'line' & expr = '(?P<method>GET|POST) (?P<path>\S+) (?P<status>\d+)' --> @dm:selectcolumns include = 'method|path|status'`,
			want: "method:object,path:object,status:object\nGET|/index.html?x=1|200\nPOST|/api|503\n~|~|~"},
		{name: "extract needs groups", pipeline: `@dm:extract column = 'line' & expr = '\d+'`,
			err: "step 1 (@dm:extract): parameter 'expr' has no named group"},
		{name: "extract bad regex", pipeline: `@dm:extract column = 'line' & expr = '(?P<x>'`,
			err: "step 1 (@dm:extract): parameter 'expr' is not a valid regex"},
		{name: "grok", pipeline: `@dm:recall name = 'logs' --> @dm:grok column = 'line' & pattern = '%{IP:client} %{WORD:method} %{URIPATHPARAM:path} %{INT:status:int} %{LOGLEVEL:level} user=%{EMAILADDRESS:email}'
			--> @dm:selectcolumns exclude = 'line'`,
			want: "client:object,method:object,path:object,status:int64,level:object,email:object\n" +
				"10.0.0.1|GET|/index.html?x=1|200|ERROR|ann@example.com\n2001:db8::1|POST|/api|503|WARN|bob@example.com\n~|~|~|~|~|~"},
		{name: "grok unknown pattern", pipeline: `@dm:grok column = 'line' & pattern = '%{NOPE:x}'`,
			err: "step 1 (@dm:grok): parameter 'pattern' is not a valid grok pattern: unknown pattern %{NOPE}"},
		{name: "change-time-format strftime", pipeline: `@dm:recall name = 'times' --> @dm:head n = 1 --> @dm:change-time-format columns = 'ts' & from_format = '%Y-%m-%d %H:%M:%S' & to_format = '%d/%b/%Y %I:%M %p'
			--> @dm:change-time-format columns = 'epoch' & from_format = 'epoch' & to_format = 'iso' --> @dm:change-time-format columns = 'at' & to_format = 'epoch_ms'`,
			want: "ts:object,epoch:object,at:int64\n02/Jan/2024 03:04 AM|2024-01-02T03:04:05Z|1704164645000"},
		{name: "change-time-format auto", pipeline: `@dm:recall name = 'times' --> @dm:change-time-format columns = 'epoch' & to_format = 'datetime' --> @dm:selectcolumns include = 'epoch'`,
			want: "epoch:datetime64[ns]\n2024-01-02T03:04:05Z\n2024-02-05T10:00:00Z"},
		{name: "change-time-format error", pipeline: `@dm:recall name = 'times' --> @dm:change-time-format columns = 'ts' & from_format = '%Y-%m-%d %H:%M:%S' & to_format = 'epoch'`,
			err: "step 2 (@dm:change-time-format): parameter 'columns': row 1, column 'ts': '05/Feb/2024 10:00' does not match the format"},
		{name: "change-time-format null on error", pipeline: `@dm:recall name = 'times' --> @dm:change-time-format columns = 'ts' & from_format = '%d/%b/%Y %H:%M' & to_format = 'epoch' & on_error = 'null' --> @dm:selectcolumns include = 'ts'`,
			want: "ts:int64\n~\n1707127200"},
		{name: "change-time-format bad format", pipeline: `@dm:change-time-format columns = 'ts' & to_format = 'YYYY-MM-DD'`,
			err: "step 1 (@dm:change-time-format): parameter 'to_format' must be auto, iso"},
		{name: "change-time-format bad directive", pipeline: `@dm:change-time-format columns = 'ts' & to_format = '%Q'`,
			err: "parameter 'to_format' is not a valid format: unknown directive %Q"},
	})
}

func TestDataBots(t *testing.T) {
	runBotCases(t, []botCase{
		{name: "enrich", pipeline: `@dm:recall name = 'hosts' --> @dm:enrich dict = 'owners' & src_key_cols = 'host' & dict_key_cols = 'name' & enrich_cols = 'owner'
			--> @dm:selectcolumns include = 'host|owner'`,
			want: "host:object,owner:object\nweb-1|ann\nweb-2|~\ndb-1|bob"},
		{name: "enrich all as", pipeline: `@dm:recall name = 'hosts' --> @dm:enrich dict = 'owners' & src_key_cols = 'host' & dict_key_cols = 'name' & enrich_cols = 'owner,team' & enrich_cols_as = 'who, site'
			--> @dm:selectcolumns include = 'host|who|site'`,
			want: "host:object,site:object,who:object\nweb-1|web|ann\nweb-2|west|~\ndb-1|data|bob"},
		{name: "enrich default cols", pipeline: `@dm:recall name = 'hosts' --> @dm:enrich dict = 'owners' & src_key_cols = 'host' & dict_key_cols = 'name' --> @dm:selectcolumns include = 'owner|team'`,
			want: "owner:object,team:object\nann|web\n~|~\nbob|data"},
		{name: "enrich key count", pipeline: `@dm:enrich dict = 'owners' & src_key_cols = 'host,site' & dict_key_cols = 'name'`,
			err: "step 1 (@dm:enrich): parameter 'dict_key_cols' must name as many columns as 'src_key_cols' (2), not 1"},
		{name: "savedlist", pipeline: `@dm:savedlist name = 'blocked' & column = 'ip'`,
			want: "ip:object\n10.0.0.1\n10.0.0.2"},
		{name: "savedlist missing", pipeline: `@dm:savedlist name = 'nope'`,
			err: "step 1 (@dm:savedlist): parameter 'name': no saved list named 'nope'"},
		{name: "loadfile", pipeline: `@files:loadfile filename = '/data/x.csv'`, want: "a:int64\n1\n2"},
		{name: "loadfile missing", pipeline: `@files:loadfile filename = '/nope'`,
			err: "step 1 (@files:loadfile): parameter 'filename': loading '/nope'"},
		{name: "object round trip csv", pipeline: `@dm:recall name = 'hosts' --> @dm:object-add folder = 'f' & name = 'h.csv' --> @dm:empty --> @dm:object-get folder = 'f' & name = 'h.csv'`,
			want: hostsDump},
		{name: "object round trip parquet sniffed", pipeline: `@dm:recall name = 'hosts' --> @dm:object-add folder = 'f' & name = 'h' & format = 'parquet' --> @dm:empty --> @dm:object-get folder = 'f' & name = 'h'`,
			want: hostsDump},
		{name: "object round trip json", pipeline: `@dm:recall name = 'hosts' --> @dm:selectcolumns include = 'host|mem' --> @dm:object-add folder = 'f' & name = 'h.data' & format = 'json' --> @dm:object-get folder = 'f' & name = 'h.data'`,
			want: "host:object,mem:int64\nweb-1|70\nweb-2|90\ndb-1|~"},
		{name: "object column", pipeline: `@dm:recall name = 'hosts' --> @dm:object-add folder = 'f' & name = 'hosts.txt' & column = 'host' --> @dm:object-get folder = 'f' & name = 'hosts.txt' & column = 'text'`,
			want: "text:object\nweb-1\nweb-2\ndb-1"},
		{name: "object list", pipeline: `@dm:recall name = 'hosts' --> @dm:object-add folder = 'f' & name = 'a' & column = 'site' --> @dm:object-add folder = 'g' & name = 'b' & column = 'host' --> @dm:object-list folder = 'f'`,
			want: "folder:object,name:object,description:object,file_type:object,file_size:int64,saved_time:datetime64[ns]\nf|a||data|14|2024-01-02T03:04:05Z"},
		{name: "object delete", pipeline: `@dm:recall name = 'hosts' --> @dm:object-add folder = 'f' & name = 'a' --> @dm:object-delete folder = 'f' & name = 'a' --> @dm:object-list`,
			want: "folder:object,name:object,description:object,file_type:object,file_size:int64,saved_time:datetime64[ns]"},
		{name: "object get missing", pipeline: `@dm:object-get folder = 'f' & name = 'nope'`,
			err: "step 1 (@dm:object-get): parameter 'name': no object 'nope' in folder 'f'"},
		{name: "save and recall", pipeline: `@dm:recall name = 'hosts' --> @dm:head n = 1 --> @dm:save name = 'one' --> @c:new-block --> @dm:recall name = 'one' --> @dm:selectcolumns include = 'host'`,
			want: "host:object\nweb-1"},
		{name: "save append", pipeline: `@dm:recall name = 'hosts' --> @dm:head n = 1 --> @dm:save name = 'acc' & append = 'yes' --> @dm:save name = 'acc' & append = 'yes'
			--> @c:new-block --> @dm:recall name = 'acc' --> @dm:selectcolumns include = 'host'`,
			want: "host:object\nweb-1\nweb-1"},
		{name: "delete-dataset", pipeline: `@dm:recall name = 'hosts' --> @dm:delete-dataset name = 'hosts' --> @dm:recall name = 'hosts'`,
			err: "step 3 (@dm:recall): parameter 'name': no dataset named 'hosts'"},
		{name: "recall missing", pipeline: `@dm:recall name = 'nope'`,
			err: "step 1 (@dm:recall): parameter 'name': no dataset named 'nope'"},
	})
}

func TestNoStore(t *testing.T) {
	e := &Engine{}
	_, err := e.Run(context.Background(), []Step{{Tag: "@dm:recall", Query: "name = 'x'"}})
	if err == nil || !strings.Contains(err.Error(), "step 1 (@dm:recall): the engine has no store") {
		t.Fatalf("err = %v", err)
	}
	// temp- datasets need no store
	out, err := runText(t, e, `@dm:empty --> @dm:addrow a = 1 --> @dm:save name = 'temp-a' --> @c:new-block --> @dm:recall name = 'temp-a'`)
	if err != nil || dump(out) != "a:int64\n1" {
		t.Fatalf("out = %v, err = %v", out, err)
	}
}

func md5hex(s string) string  { h := md5.Sum([]byte(s)); return hex.EncodeToString(h[:]) }
func sha1hex(s string) string { h := sha1.Sum([]byte(s)); return hex.EncodeToString(h[:]) }

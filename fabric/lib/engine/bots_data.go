package engine

import (
	"bytes"
	"strings"

	"github.com/fabricops/fabric/fabric/lib/frame"
)

// This file holds the bots that reach datasets, objects, saved lists and
// files, and enrich (which joins a dataset).

func init() {
	objFormat := p("format", "choice", false, "csv", "the format the frame is written in", "csv", "json", "jsonl", "parquet")
	register(
		&bot{run: runRecall, doc: BotDoc{Tag: "@dm:recall",
			Description: "Loads a dataset as the frame in hand (temp- datasets from the job's memory).",
			Params:      []ParamDoc{p("name", "string", true, "", "the dataset")}}},
		&bot{run: runSave, doc: BotDoc{Tag: "@dm:save",
			Description: "Saves the frame in hand as a dataset (temp- datasets in the job's memory only) and passes it on.",
			Params: []ParamDoc{
				p("name", "string", true, "", "the dataset"),
				p("append", "bool", false, "no", "append the rows to the dataset rather than replace it (a missing dataset is created)"),
			}}},
		&bot{run: runDeleteDataset, doc: BotDoc{Tag: "@dm:delete-dataset",
			Description: "Deletes a dataset (a missing one is not an error) and passes the frame in hand on.",
			Params:      []ParamDoc{p("name", "string", true, "", "the dataset")}}},
		&bot{run: runSavedList, doc: BotDoc{Tag: "@dm:savedlist",
			Description: "Makes a frame of the items of a saved list (Store.SavedList), one row per item.",
			Params: []ParamDoc{
				p("name", "string", true, "", "the saved list"),
				p("column", "string", false, "value", "the name of the column of items"),
			}}},
		&bot{run: runObjectAdd, doc: BotDoc{Tag: "@dm:object-add",
			Description: "Saves the frame in hand as an object (written in format, or the text of one column) and passes it on.",
			Params: []ParamDoc{
				p("folder", "string", true, "", "the object's folder"),
				p("name", "string", true, "", "the object's name"),
				objFormat,
				p("column", "string", false, "", "save the values of this column instead, as text, one row per line (a one-row frame saves the value as is)"),
			}}},
		&bot{run: runObjectGet, doc: BotDoc{Tag: "@dm:object-get",
			Description: "Loads an object as the frame: a CSV, JSON, JSON lines, Parquet or Excel (.xlsx, legacy .xls) file (CSV and JSON optionally gzip, bzip2, xz or zstd compressed), or its raw text in one row.",
			Params: []ParamDoc{
				p("folder", "string", true, "", "the object's folder"),
				p("name", "string", true, "", "the object's name"),
				p("format", "choice", false, "auto", "the object's format: auto tells from the name's extension, then from the content (Parquet magic, a zip for xlsx, a compound file for xls, '[' for JSON, '{' for JSON lines, CSV otherwise)", "auto", "csv", "json", "jsonl", "parquet", "xlsx", "xls"),
				p("column", "string", false, "", "load the object's raw text into this column of a one-row frame instead"),
			}}},
		&bot{run: runObjectList, doc: BotDoc{Tag: "@dm:object-list",
			Description: "Lists objects as the frame: folder, name, description, file_type, file_size, saved_time.",
			Params:      []ParamDoc{p("folder", "string", false, "", "the folder (all folders when not given)")}}},
		&bot{run: runObjectDelete, doc: BotDoc{Tag: "@dm:object-delete",
			Description: "Deletes an object and passes the frame in hand on.",
			Params: []ParamDoc{
				p("folder", "string", true, "", "the object's folder"),
				p("name", "string", true, "", "the object's name"),
			}}},
		&bot{run: runLoadFile, doc: BotDoc{Tag: "@files:loadfile",
			Description: "Loads a file of the tenant's data directory on the worker as the frame, its format told from its extension.",
			Params:      []ParamDoc{p("filename", "string", true, "", "the file's path, relative to the data directory")}}},
		&bot{run: runEnrich, check: checkEnrich, doc: BotDoc{Tag: "@dm:enrich",
			Description: "Adds columns of a dictionary dataset to the rows whose key columns match (a left join; the first matching dictionary row wins; keys match by text, 1 matching 1.0 and '1'). An enriched column of the name of an existing one replaces its values in the rows that match.",
			Params: []ParamDoc{
				p("dict", "string", true, "", "the dictionary dataset"),
				p("src_key_cols", "list", true, "", "the key columns of the frame in hand"),
				p("dict_key_cols", "list", true, "", "the matching key columns of the dictionary, in the same order"),
				p("enrich_cols", "list", false, "", "the dictionary columns to add (all but its keys when not given)"),
				p("enrich_cols_as", "list", false, "", "names for the added columns, in the order of enrich_cols"),
			}}},
	)
}

func runRecall(r *run, in *frame.Frame, p *params) (*frame.Frame, error) {
	return r.load("name", p.str("name"))
}

func runSave(r *run, in *frame.Frame, p *params) (*frame.Frame, error) {
	return in, r.save("name", p.str("name"), in, p.flag("append"))
}

func runDeleteDataset(r *run, in *frame.Frame, p *params) (*frame.Frame, error) {
	name := p.str("name")
	if isTemp(name) {
		if old, ok := r.temps[name]; ok {
			r.release(heldBytes(old))
			delete(r.temps, name)
		}
		return in, nil
	}
	s, err := r.store()
	if err != nil {
		return nil, err
	}
	if err := s.DeleteDataset(r.ctx, name); err != nil && !isNotFound(err) {
		return nil, paramErr("name", "deleting '%s': %v", name, err)
	}
	return in, nil
}

func runSavedList(r *run, in *frame.Frame, p *params) (*frame.Frame, error) {
	s, err := r.store()
	if err != nil {
		return nil, err
	}
	name := p.str("name")
	items, err := s.SavedList(r.ctx, name)
	if err != nil {
		if isNotFound(err) {
			return nil, paramErr("name", "no saved list named '%s'", name)
		}
		return nil, paramErr("name", "reading '%s': %v", name, err)
	}
	rows := make([][]any, len(items))
	for i, it := range items {
		rows[i] = []any{it}
	}
	return build([]string{p.str("column")}, []kind{kStr}, rows)
}

func runObjectAdd(r *run, in *frame.Frame, p *params) (*frame.Frame, error) {
	s, err := r.store()
	if err != nil {
		return nil, err
	}
	var data []byte
	if col := p.str("column"); col != "" {
		vals, err := in.Column(col)
		if err != nil {
			return nil, missingColumn("column", col, in)
		}
		lines := make([]string, len(vals))
		for i, v := range vals {
			lines[i] = str(v)
		}
		data = []byte(strings.Join(lines, "\n"))
	} else {
		var buf bytes.Buffer
		if err := in.WriteTo(&buf, frame.Format(p.str("format")), frame.NoCompression); err != nil {
			return nil, paramErr("format", "writing the frame: %v", err)
		}
		data = buf.Bytes()
	}
	folder, name := p.str("folder"), p.str("name")
	if err := s.PutObject(r.ctx, folder, name, data); err != nil {
		return nil, paramErr("name", "saving '%s/%s': %v", folder, name, err)
	}
	return in, nil
}

// sniff tells the format of an object from its content.
func sniff(data []byte) frame.Format {
	if bytes.HasPrefix(data, []byte("PAR1")) {
		return frame.Parquet
	}
	if bytes.HasPrefix(data, []byte("PK\x03\x04")) {
		return frame.XLSX
	}
	if bytes.HasPrefix(data, []byte("\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1")) { // a compound file: legacy Excel
		return frame.XLS
	}
	t := bytes.TrimLeft(data, " \t\r\n\ufeff")
	switch {
	case bytes.HasPrefix(t, []byte("[")):
		return frame.JSON
	case bytes.HasPrefix(t, []byte("{")):
		return frame.JSONL
	}
	return frame.CSV
}

func runObjectGet(r *run, in *frame.Frame, p *params) (*frame.Frame, error) {
	s, err := r.store()
	if err != nil {
		return nil, err
	}
	folder, name := p.str("folder"), p.str("name")
	data, err := s.GetObject(r.ctx, folder, name)
	if err != nil {
		if isNotFound(err) {
			return nil, paramErr("name", "no object '%s' in folder '%s'", name, folder)
		}
		return nil, paramErr("name", "reading '%s/%s': %v", folder, name, err)
	}
	if col := p.str("column"); col != "" {
		return build([]string{col}, []kind{kStr}, [][]any{{string(data)}})
	}
	format, comp := frame.Format(p.str("format")), frame.NoCompression
	if format == frame.Auto {
		if f, c, err := frame.Detect(name, frame.Auto); err == nil {
			format, comp = f, c
		} else {
			format = sniff(data)
		}
	}
	src, err := frame.OpenReader(bytes.NewReader(data), format, comp)
	if err != nil {
		return nil, paramErr("name", "reading '%s/%s' as %s: %v", folder, name, format, err)
	}
	defer src.Close()
	f, err := frame.ReadFrom(src)
	if err != nil {
		return nil, paramErr("name", "reading '%s/%s' as %s: %v", folder, name, format, err)
	}
	return f, nil
}

func runObjectList(r *run, in *frame.Frame, p *params) (*frame.Frame, error) {
	s, err := r.store()
	if err != nil {
		return nil, err
	}
	infos, err := s.ListObjects(r.ctx, p.str("folder"))
	if err != nil {
		return nil, paramErr("folder", "listing objects: %v", err)
	}
	rows := make([][]any, len(infos))
	for i, o := range infos {
		var saved any
		if !o.SavedTime.IsZero() {
			saved = o.SavedTime
		}
		rows[i] = []any{o.Folder, o.Name, o.Description, o.FileType, o.Size, saved}
	}
	return build([]string{"folder", "name", "description", "file_type", "file_size", "saved_time"},
		[]kind{kStr, kStr, kStr, kStr, kInt, kTime}, rows)
}

func runObjectDelete(r *run, in *frame.Frame, p *params) (*frame.Frame, error) {
	s, err := r.store()
	if err != nil {
		return nil, err
	}
	folder, name := p.str("folder"), p.str("name")
	if err := s.DeleteObject(r.ctx, folder, name); err != nil {
		if isNotFound(err) {
			return nil, paramErr("name", "no object '%s' in folder '%s'", name, folder)
		}
		return nil, paramErr("name", "deleting '%s/%s': %v", folder, name, err)
	}
	return in, nil
}

func runLoadFile(r *run, in *frame.Frame, p *params) (*frame.Frame, error) {
	s, err := r.store()
	if err != nil {
		return nil, err
	}
	name := p.str("filename")
	f, err := s.ReadFile(r.ctx, name)
	if err != nil {
		return nil, paramErr("filename", "loading '%s': %v", name, err)
	}
	return f, nil
}

func checkEnrich(p *params) error {
	src, dict := p.cols("src_key_cols"), p.cols("dict_key_cols")
	if len(src) != len(dict) {
		return badParam("dict_key_cols", "must name as many columns as 'src_key_cols' (%d), not %d", len(src), len(dict))
	}
	if p.has("enrich_cols_as") && len(p.cols("enrich_cols_as")) != len(p.cols("enrich_cols")) {
		return badParam("enrich_cols_as", "must name as many columns as 'enrich_cols' (%d), not %d", len(p.cols("enrich_cols")), len(p.cols("enrich_cols_as")))
	}
	return nil
}

func runEnrich(r *run, in *frame.Frame, p *params) (*frame.Frame, error) {
	dict, err := r.load("dict", p.str("dict"))
	if err != nil {
		return nil, err
	}
	srcPos, err := positions("src_key_cols", in, p.cols("src_key_cols"))
	if err != nil {
		return nil, err
	}
	dictPos, err := positions("dict_key_cols", dict, p.cols("dict_key_cols"))
	if err != nil {
		return nil, err
	}
	names := p.cols("enrich_cols")
	if len(names) == 0 {
		isKey := map[int]bool{}
		for _, j := range dictPos {
			isKey[j] = true
		}
		for j, c := range dict.Columns() {
			if !isKey[j] {
				names = append(names, c)
			}
		}
	}
	addPos, err := positions("enrich_cols", dict, names)
	if err != nil {
		return nil, err
	}
	as := names
	if p.has("enrich_cols_as") {
		as = p.cols("enrich_cols_as")
	}
	lookup := map[string][]any{}
	for i := 0; i < dict.NumRows(); i++ {
		row := dict.Row(i)
		if k := rowKey(row, dictPos); lookup[k] == nil {
			lookup[k] = row
		}
	}
	cols := in.Columns()
	hints := kindsOf(in)
	dictKinds := kindsOf(dict)
	idx := colIndex(in)
	target := make([]int, len(as))
	for i, name := range as {
		if j, ok := idx[name]; ok {
			target[i] = j
			continue
		}
		idx[name] = len(cols)
		target[i] = len(cols)
		cols = append(cols, name)
		hints = append(hints, dictKinds[addPos[i]])
	}
	rows := make([][]any, in.NumRows())
	for i := range rows {
		row := append(in.Row(i), make([]any, len(cols)-in.NumCols())...)
		if match := lookup[rowKey(row, srcPos)]; match != nil {
			for k, t := range target {
				row[t] = match[addPos[k]]
			}
		}
		rows[i] = row
	}
	return build(cols, hints, rows)
}

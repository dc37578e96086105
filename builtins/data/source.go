package data

import (
	"fmt"
	"github.com/fabricops/fabric/builtins"
	"github.com/fabricops/fabric/fabric/lib/safefile"
	"io"
	"net/url"
	"os"
	"path"
	"strings"

	"github.com/fabricops/fabric/fabric/lib/frame"
	"github.com/fabricops/fabric/runtime/host"
	"go.starlark.net/starlark"
)

// streamable formats are read as a stream; the others (parquet, xlsx, xls)
// need a file.
func streamable(f frame.Format) bool {
	return f == frame.Format("csv") || f == frame.Format("json") || f == frame.Format("jsonl")
}

// openSource opens a local path or an http/https URL as record batches in
// format f ("auto": from the extension), with a progress line on a
// terminal. The caller closes the source.
func openSource(thread *starlark.Thread, file string, f frame.Format) (frame.Source, error) {
	if strings.HasPrefix(file, "http://") || strings.HasPrefix(file, "https://") {
		return openURL(thread, file, f)
	}
	p := host.From(thread).Path(file)
	st, err := os.Stat(p)
	if err != nil {
		return nil, builtins.TrimPathError(err)
	}
	format, comp, err := frame.Detect(p, f)
	if err != nil {
		return nil, err
	}
	if !streamable(format) {
		return frame.Open(p, format)
	}
	fh, err := os.Open(p)
	if err != nil {
		return nil, builtins.TrimPathError(err)
	}
	pr := builtins.WithProgress(thread, fh, "reading "+path.Base(file), st.Size())
	src, err := frame.OpenReader(pr, format, comp)
	if err != nil {
		fh.Close()
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	return sourceCloser{src, func() error { pr.Finish(); return fh.Close() }}, nil
}

func openURL(thread *starlark.Thread, raw string, f frame.Format) (frame.Source, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("bad URL %q: %v", raw, err)
	}
	format, comp, err := frame.Detect(u.Path, f)
	if err != nil {
		return nil, err
	}
	body, size, err := builtins.HTTPGet(host.Context(thread), raw)
	if err != nil {
		return nil, err
	}
	label := "downloading " + path.Base(u.Path)
	if streamable(format) {
		pr := builtins.WithProgress(thread, body, label, size)
		src, err := frame.OpenReader(pr, format, comp)
		if err != nil {
			body.Close()
			return nil, fmt.Errorf("%s: %v", raw, err)
		}
		return sourceCloser{src, func() error { pr.Finish(); return body.Close() }}, nil
	}
	tmp, err := builtins.Spool(thread, body, size, raw, label, path.Ext(u.Path))
	if err != nil {
		return nil, err
	}
	remove := func() error { return os.Remove(tmp) }
	src, err := frame.Open(tmp, format)
	if err != nil {
		remove()
		return nil, err
	}
	return sourceCloser{src, remove}, nil
}

// sourceCloser is a Source that releases something more when closed.
type sourceCloser struct {
	frame.Source
	also func() error
}

func (s sourceCloser) Close() error {
	err := s.Source.Close()
	if aerr := s.also(); err == nil {
		err = aerr
	}
	return err
}

// exportSource streams src into a local file in format f ("auto": from
// the extension), atomically; it returns the stats.
func exportSource(thread *starlark.Thread, src frame.Source, to string, f frame.Format) (frame.Stats, error) {
	p := host.From(thread).Path(to)
	format, comp, err := frame.Detect(p, f)
	if err != nil {
		return frame.Stats{}, err
	}
	var stats frame.Stats
	err = safefile.Write(p, func(w io.Writer) (err error) {
		stats, err = writeSource(w, src, format, comp)
		return err
	})
	return stats, err
}

// writeSource streams src to w in format f, compressed with comp.
func writeSource(w io.Writer, src frame.Source, f frame.Format, comp frame.Compression) (frame.Stats, error) {
	sink, err := frame.NewSink(w, f, comp, src.Schema())
	if err != nil {
		return frame.Stats{}, err
	}
	stats, err := frame.Copy(sink, src)
	if cerr := sink.Close(); err == nil {
		err = cerr
	}
	return stats, err
}

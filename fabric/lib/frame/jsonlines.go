package frame

import (
	"errors"
	"io"
)

// errNoLines tells FromJSONLines that produce yielded nothing.
var errNoLines = errors.New("no lines")

// FromJSONLines loads the records produce yields (each a JSON object, in
// order) as a frame, typed as a JSON-lines file of them would be, without
// holding their text: produce runs while the frame is built. No records
// make an empty frame; produce's error is returned as it is.
func FromJSONLines(produce func(yield func(record []byte) error) error) (*Frame, error) {
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		n := 0
		err := produce(func(rec []byte) error {
			n++
			if _, err := pw.Write(rec); err != nil {
				return err
			}
			_, err := pw.Write([]byte{'\n'})
			return err
		})
		if err == nil && n == 0 {
			err = errNoLines
		}
		pw.CloseWithError(err)
		done <- err
	}()
	src, err := OpenReader(pr, JSONL, NoCompression)
	if err != nil {
		pr.CloseWithError(err)
		if perr := <-done; errors.Is(perr, errNoLines) {
			return FromRows(nil, nil)
		} else if perr != nil {
			return nil, perr
		}
		return nil, err
	}
	defer src.Close()
	f, err := ReadFrom(src)
	pr.CloseWithError(errors.New("frame read"))
	if perr := <-done; perr != nil && !errors.Is(perr, errNoLines) {
		return nil, perr
	}
	return f, err
}

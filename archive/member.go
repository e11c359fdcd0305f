package archive

import (
	"compress/gzip"
	"context"
	"fmt"
	"io"

	"github.com/mfdlq/mfdlq/sqsjson"
)

// checkpoint ends the gzip member, makes the file durable and only then
// deletes exactly the messages written so far.
func checkpoint(ctx context.Context, w *member, cp Checkpointer, h *handles, st *Stats) error {
	if err := w.end(); err != nil {
		return err
	}
	if err := cp.Checkpoint(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	d, _ := h.deleteWritten(context.WithoutCancel(ctx))
	st.Deleted += d
	w.start()
	return nil
}

// member writes the export's lines, gzipped as one gzip member per
// checkpoint: a gzip file may hold several members one after the other
// (gzip -d and Go's gzip.Reader read them as one stream), and a crash
// after a checkpoint leaves every checkpointed member whole.
type member struct {
	sink io.Writer
	gzip bool
	gz   *gzip.Writer
	out  *sqsjson.Writer
}

func (m *member) start() {
	var w io.Writer = m.sink
	if m.gzip {
		if m.gz == nil {
			m.gz = gzip.NewWriter(m.sink)
		} else {
			m.gz.Reset(m.sink)
		}
		w = m.gz
	}
	m.out = sqsjson.NewWriter(w)
}

// end flushes the lines and ends the gzip member.
func (m *member) end() error {
	if err := m.out.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	if m.gz != nil {
		if err := m.gz.Close(); err != nil {
			return fmt.Errorf("write: %w", err)
		}
	}
	return nil
}

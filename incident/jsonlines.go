package incident

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// ReadJSONLines reads an append-only JSON Lines file of the incident (the
// events, the redrive journal) leniently: a missing file is empty, blank
// lines are skipped, and so is a line that does not decode — a torn last
// line left by a crash mid-write. keep, when not nil, drops records it
// returns false for.
func ReadJSONLines[T any](path string, keep func(T) bool) ([]T, error) {
	out := []T{}
	f, err := openFile(path, os.O_RDONLY)
	if errors.Is(err, os.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var v T
		if json.Unmarshal(line, &v) != nil || (keep != nil && !keep(v)) {
			continue
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("read %s: %w", path, err)
	}
	return out, nil
}

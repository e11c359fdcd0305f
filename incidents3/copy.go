package incidents3

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/mfdlq/mfdlq/incident"
)

// StateFile is the working copy's memory of the pull: each file's ETag,
// SHA-256 and size as S3 held it. Hidden, so that no step takes it for an
// artifact and Push never uploads it.
const StateFile = ".s3-incident.json"

// nameRE is a file of an incident that travels to and from S3: a plain
// name, never hidden (temporary files of an atomic write start with a
// dot), never a path.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$`)

// state is StateFile's content.
type state struct {
	Location string                 `json:"location"`
	Objects  map[string]objectState `json:"objects"`
}

type objectState struct {
	ETag   string `json:"etag"`
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
}

// Copy is a local working copy of an incident in S3.
type Copy struct {
	Loc Location
	WS  *incident.Workspace
	// New tells that S3 held no file of the incident at the pull: the
	// first Push creates it (a mistyped ID starts a new incident, so the
	// caller says so).
	New bool
	c   API
	st  state
}

// Skipped is an object of the incident a pull left in S3, and why.
type Skipped struct {
	Name, Why string
}

// WorkDir is where a laptop keeps its working copy of loc: beside the
// per-user incidents (incident.DefaultRoot), under mfdlq/s3/, by bucket,
// prefix and ID, so two incidents never share a directory.
func WorkDir(loc Location) (string, error) {
	root, err := incident.DefaultRoot(os.Getenv)
	if err != nil {
		return "", fmt.Errorf("no directory for the working copy of %s: set XDG_STATE_HOME or HOME", loc)
	}
	parts := []string{filepath.Dir(root), "s3", loc.Bucket}
	parts = append(parts, strings.Split(strings.TrimSuffix(loc.Path, "/"), "/")...)
	return filepath.Join(append(parts, loc.ID)...), nil
}

// Open makes dir the working copy of loc: it writes back what an earlier
// session left unpushed (Push), then pulls every file of the incident that
// changed in S3. The directory follows the local incident rules
// (incident.Open: 0700, owned by this user, never a symlink). An incident
// S3 does not hold yet is an empty copy: the first Push creates it.
func Open(ctx context.Context, c API, loc Location, dir string) (*Copy, []Skipped, error) {
	ws, err := incident.Open(dir)
	if err != nil {
		return nil, nil, err
	}
	cp := &Copy{Loc: loc, WS: ws, c: c, st: state{Location: loc.String(), Objects: map[string]objectState{}}}
	if err := ws.ReadJSON(StateFile, &cp.st); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("working copy %s: %w", dir, err)
	}
	if cp.st.Location != loc.String() {
		return nil, nil, fmt.Errorf("working copy %s belongs to %s, not %s: pass another directory", dir, cp.st.Location, loc)
	}
	if cp.st.Objects == nil {
		cp.st.Objects = map[string]objectState{}
	}
	if _, err := cp.Push(ctx); err != nil {
		return nil, nil, err
	}
	skipped, err := cp.pull(ctx)
	return cp, skipped, err
}

// pull downloads each object of the incident whose ETag differs from the
// one this copy last saw.
func (cp *Copy) pull(ctx context.Context) ([]Skipped, error) {
	remote, skipped, err := cp.list(ctx)
	if err != nil {
		return nil, err
	}
	cp.New = len(remote) == 0 && len(skipped) == 0
	for _, r := range remote {
		if cp.st.Objects[r.name].ETag == r.etag && cp.WS.Has(r.name) {
			continue
		}
		o, err := get(ctx, cp.c, cp.Loc.Bucket, cp.Loc.key(r.name), MaxObjectBytes)
		var tl *TooLargeError
		switch {
		case errors.As(err, &tl):
			skipped = append(skipped, Skipped{Name: r.name, Why: tl.Error()})
			continue
		case errors.Is(err, ErrNotFound):
			continue
		case err != nil:
			return skipped, err
		}
		if err := cp.WS.WriteFile(r.name, o.data); err != nil {
			return skipped, err
		}
		cp.st.Objects[r.name] = objectState{ETag: o.etag, SHA256: sum(o.data), Size: int64(len(o.data))}
	}
	return skipped, cp.save()
}

type listed struct{ name, etag string }

// list names the incident's objects: plain names only, at most MaxObjects.
func (cp *Copy) list(ctx context.Context) ([]listed, []Skipped, error) {
	var out []listed
	var skipped []Skipped
	in := &s3.ListObjectsV2Input{Bucket: aws.String(cp.Loc.Bucket), Prefix: aws.String(cp.Loc.dir())}
	for p := s3.NewListObjectsV2Paginator(cp.c, in); p.HasMorePages(); {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, nil, fmt.Errorf("list %s: %w", cp.Loc, err)
		}
		for _, o := range page.Contents {
			name := strings.TrimPrefix(aws.ToString(o.Key), cp.Loc.dir())
			switch {
			case !nameRE.MatchString(name):
				skipped = append(skipped, Skipped{Name: fmt.Sprintf("%q", name), Why: "not a plain file name: left in S3"})
			case len(out) >= MaxObjects:
				return out, append(skipped, Skipped{Name: name, Why: fmt.Sprintf("the incident holds more than %d objects: the rest is left in S3", MaxObjects)}), nil
			default:
				out = append(out, listed{name: name, etag: aws.ToString(o.ETag)})
			}
		}
	}
	return out, skipped, nil
}

// ConflictError is an artifact that changed both here and in S3 since the
// pull: neither write is lost, and the person chooses.
type ConflictError struct {
	Loc   Location
	Names []string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("%s changed in %s since this copy pulled it (another writer): S3's stays, yours is kept beside it and written to S3 at the next run; the next --incident %s pulls S3's, then run that step again if it should win",
		strings.Join(e.Names, ", "), e.Loc, e.Loc)
}

// setAside renames the working copy's name, which lost to another
// writer's, to name.conflict-SHA (a plain name, so the next Push writes it
// to S3 beside S3's), and forgets name so the next pull brings S3's.
func (cp *Copy) setAside(name string, data []byte) (string, error) {
	kept := name + ".conflict-" + sum(data)[:12]
	if err := os.Rename(cp.WS.Path(name), cp.WS.Path(kept)); err != nil {
		return "", fmt.Errorf("working copy: set aside %s: %w", name, err)
	}
	delete(cp.st.Objects, name)
	return kept, nil
}

// Pushed is what a Push wrote.
type Pushed struct {
	Files     []string // the files written, events.jsonl included
	NewEvents int      // the events this copy added
}

// Push writes every file that changed in the working copy since the pull
// back to S3, each conditionally; events.jsonl merges with events others
// appended meanwhile. Files that changed in S3 too are a *ConflictError,
// after every other file is written.
func (cp *Copy) Push(ctx context.Context) (Pushed, error) {
	var res Pushed
	names, err := cp.localNames()
	if err != nil {
		return res, err
	}
	var conflicts []string
	for _, name := range names {
		data, err := cp.WS.ReadFile(name)
		if err != nil {
			return res, fmt.Errorf("working copy: %w", err)
		}
		prev, had := cp.st.Objects[name]
		if had && prev.SHA256 == sum(data) {
			continue
		}
		if int64(len(data)) > MaxObjectBytes {
			return res, fmt.Errorf("%s is %d bytes, more than the %d an incident file in S3 may hold", cp.WS.Path(name), len(data), MaxObjectBytes)
		}
		if name == incident.EventsFile {
			n, err := cp.pushEvents(ctx, data, prev)
			if err != nil {
				return res, err
			}
			res.Files, res.NewEvents = append(res.Files, name), n
			continue
		}
		etag, err := put(ctx, cp.c, cp.Loc.Bucket, cp.Loc.key(name), data, prev.ETag, contentType(name))
		switch {
		case errors.Is(err, errConditionLost):
			kept, rerr := cp.setAside(name, data)
			if rerr != nil {
				return res, rerr
			}
			conflicts = append(conflicts, name+" (yours is "+kept+")")
			continue
		case err != nil:
			return res, err
		}
		cp.st.Objects[name] = objectState{ETag: etag, SHA256: sum(data), Size: int64(len(data))}
		res.Files = append(res.Files, name)
	}
	if err := cp.save(); err != nil {
		return res, err
	}
	if len(conflicts) > 0 {
		return res, &ConflictError{Loc: cp.Loc, Names: conflicts}
	}
	return res, nil
}

// localNames lists the working copy's plain regular files, sorted.
func (cp *Copy) localNames() ([]string, error) {
	entries, err := os.ReadDir(cp.WS.Dir)
	if err != nil {
		return nil, fmt.Errorf("working copy: %w", err)
	}
	var out []string
	for _, e := range entries {
		if e.Type().IsRegular() && nameRE.MatchString(e.Name()) {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}

func (cp *Copy) save() error { return cp.WS.WriteJSON(StateFile, cp.st) }

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func contentType(name string) string {
	switch filepath.Ext(name) {
	case ".json":
		return "application/json"
	case ".jsonl":
		return "application/x-ndjson"
	case ".md":
		return "text/markdown; charset=utf-8"
	}
	return "application/octet-stream"
}

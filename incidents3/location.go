package incidents3

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/mfdlq/mfdlq/s3name"
)

// Prefix is where a team keeps its incidents: s3://bucket/prefix/.
type Prefix struct {
	Bucket string
	Path   string // "" or ending with "/"
}

// Location is one incident in S3: s3://bucket/prefix/ID.
type Location struct {
	Prefix
	ID string
}

// idRE is an incident ID: an incident directory's name (a queue name, a
// dash, a start time, maybe -N), so it is a safe local path element too.
var idRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,199}$`)

// IsURL tells an --incident value that names S3 rather than a directory.
func IsURL(s string) bool { return strings.HasPrefix(s, "s3://") }

// ParsePrefix reads s3://bucket/prefix/ (the prefix may be empty: the
// bucket's root). A prefix without its final slash is taken as one.
func ParsePrefix(s string) (Prefix, error) {
	rest, ok := strings.CutPrefix(s, "s3://")
	if !ok {
		return Prefix{}, fmt.Errorf("%q: give s3://bucket/prefix/", s)
	}
	bucket, path, _ := strings.Cut(rest, "/")
	if err := s3name.CheckBucket(bucket); err != nil {
		return Prefix{}, fmt.Errorf("s3 incident %s", err)
	}
	if path != "" && !strings.HasSuffix(path, "/") {
		path += "/"
	}
	if strings.Contains(path, "//") || strings.HasPrefix(path, "/") || len(path) > 512 {
		return Prefix{}, fmt.Errorf("%q: the prefix must be plain path elements (no empty one), at most 512 bytes", s)
	}
	for _, el := range strings.Split(strings.TrimSuffix(path, "/"), "/") {
		if el == "." || el == ".." {
			return Prefix{}, fmt.Errorf("%q: the prefix holds %q", s, el)
		}
	}
	return Prefix{Bucket: bucket, Path: path}, nil
}

// Parse reads s3://bucket/prefix/ID: the last path element is the
// incident's ID.
func Parse(s string) (Location, error) {
	trimmed := strings.TrimSuffix(s, "/")
	i := strings.LastIndexByte(trimmed, '/')
	if i < len("s3://") {
		return Location{}, fmt.Errorf("--incident %q: give s3://bucket/prefix/ID (the incident's ID last)", s)
	}
	p, err := ParsePrefix(trimmed[:i+1])
	if err != nil {
		return Location{}, err
	}
	id := trimmed[i+1:]
	if !idRE.MatchString(id) {
		return Location{}, fmt.Errorf("--incident %q: the incident ID %q is not an incident's name (letters, digits, '_', '.', '-')", s, id)
	}
	return Location{Prefix: p, ID: id}, nil
}

// String is the prefix's URL.
func (p Prefix) String() string { return "s3://" + p.Bucket + "/" + p.Path }

// Incident is the location of the incident id under p.
func (p Prefix) Incident(id string) Location { return Location{Prefix: p, ID: id} }

// String is the incident's URL, as --incident takes it.
func (l Location) String() string { return l.Prefix.String() + l.ID }

// dir is the key prefix of the incident's objects.
func (l Location) dir() string { return l.Path + l.ID + "/" }

// key is the object key of the incident's file name.
func (l Location) key(name string) string { return l.dir() + name }

package archive

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/s3/transfermanager"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// S3 is the S3 calls of an export and of a redrive from a file, with the
// SDK's signatures so that *s3.Client satisfies it.
type S3 interface {
	// S3APIClient is what the transfer manager calls to upload, and it
	// holds the GetObject, HeadObject and ListObjectsV2 (which finds the
	// parts after a missing one of an export without a manifest) that a
	// redrive from a file reads with.
	transfermanager.S3APIClient
	HeadBucket(ctx context.Context, in *s3.HeadBucketInput, optFns ...func(*s3.Options)) (*s3.HeadBucketOutput, error)
}

var _ S3 = (*s3.Client)(nil)

// Errors of an S3 location, for the exit status.
var (
	ErrBucketNotFound = errors.New("bucket not found or unreachable")
	ErrBucketDenied   = errors.New("access to the bucket denied")
)

// CheckS3 tells, before an export reads anything, whether the bucket can
// be reached and the object does not exist yet.
func CheckS3(ctx context.Context, c S3, loc S3Location) error {
	if _, err := c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(loc.Bucket)}); err != nil {
		return bucketError(loc, err)
	}
	_, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(loc.Bucket), Key: aws.String(loc.Key)})
	switch {
	case err == nil:
		return fmt.Errorf("%s: %w", loc, ErrExists)
	case httpStatus(err) == http.StatusNotFound:
		return nil
	}
	return bucketError(loc, err)
}

func bucketError(loc S3Location, err error) error {
	switch httpStatus(err) {
	case http.StatusForbidden:
		return fmt.Errorf("s3 bucket %s: %w: let this role call s3:ListBucket, s3:GetObject and s3:PutObject on it (docs/iam.md): %v", loc.Bucket, ErrBucketDenied, err)
	case http.StatusNotFound, http.StatusMovedPermanently:
		return fmt.Errorf("s3 bucket %s: %w: check the name and that it is in this region (--region): %v", loc.Bucket, ErrBucketNotFound, err)
	}
	return fmt.Errorf("s3 bucket %s: %w: check the name, the region and the network (AWS_ENDPOINT_URL): %v", loc.Bucket, ErrBucketNotFound, err)
}

func httpStatus(err error) int {
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

// s3Sink writes to a private temporary file and uploads it on Commit with
// the SDK's transfer manager (multipart past its part size). It sets no ACL and no encryption: the object
// is private and encrypted as the bucket's defaults say.
type s3Sink struct {
	*fileSink
	dir string
	c   S3
	loc S3Location
	id  string // the export's id, set on the object (metaExportID)
}

// Object metadata an export sets, lowercase as S3 returns it: the export's
// id (a part and its manifest carry the same) and a token of this upload,
// by which a retried PUT that meets its own object knows it.
const (
	metaExportID = "mfdlq-export-id"
	metaUpload   = "mfdlq-upload"
)

// NewS3Sink prepares an export to loc.
func NewS3Sink(c S3, loc S3Location) (Sink, error) { return newS3Sink(c, loc, "") }

// newS3Sink stages the upload in a private directory under stage ("": the
// system's temporary directory).
func newS3Sink(c S3, loc S3Location, stage string) (Sink, error) {
	dir, err := os.MkdirTemp(stage, "mfdlq-export-") // 0700
	if err != nil {
		return nil, err
	}
	fs, err := NewFileSink(filepath.Join(dir, filepath.Base(loc.Key)))
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return &s3Sink{fileSink: fs.(*fileSink), dir: dir, c: c, loc: loc}, nil
}

// Commit uploads the file only if no object exists at the key
// (If-None-Match: * on PutObject, or on CompleteMultipartUpload for a large
// file): the check before the export is not enough, another operator's
// export may create the key meanwhile, and an overwrite would lose their
// file. A refusal (412 Precondition Failed, or 409 when a concurrent
// upload won) is ErrExists, as the check. It then reads the object back
// (pinned to the ETag it wrote) and compares its size and SHA-256 with
// the file's: only an object known to hold what was written lets an
// export delete messages.
func (s *s3Sink) Commit(ctx context.Context) (string, error) {
	defer func() {
		if s.durable == 0 {
			// A staged file that holds deleted messages (staged checkpoints)
			// stays until the upload is read back: the caller keeps it.
			s.close()
			os.RemoveAll(s.dir)
		}
	}()
	if err := s.sync(); err != nil {
		return "", fmt.Errorf("write %s: %w", s.tmp.Name(), err)
	}
	f, err := os.Open(s.tmp.Name())
	if err != nil {
		return "", err
	}
	defer f.Close()
	token := newExportID()
	meta := map[string]string{metaUpload: token}
	if s.id != "" {
		meta[metaExportID] = s.id
	}
	out, err := transfermanager.New(s.c).UploadObject(ctx, &transfermanager.UploadObjectInput{
		Bucket: aws.String(s.loc.Bucket), Key: aws.String(s.loc.Key), Body: f,
		ContentType: aws.String("application/x-ndjson"),
		IfNoneMatch: aws.String("*"),
		Metadata:    meta,
	})
	etag := ""
	switch {
	case err == nil:
		etag = aws.ToString(out.ETag)
	case httpStatus(err) == http.StatusPreconditionFailed || httpStatus(err) == http.StatusConflict:
		// The SDK retries a PUT whose answer was lost; the retry then
		// meets the object its first attempt created. Only an object that
		// carries this upload's token is ours; the read back below checks
		// its bytes all the same.
		head, herr := s.c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(s.loc.Bucket), Key: aws.String(s.loc.Key)})
		if herr != nil || head.Metadata[metaUpload] != token {
			return "", fmt.Errorf("%s: %w (created by someone else while this export ran; it was left as it is)", s.loc, ErrExists)
		}
		etag = aws.ToString(head.ETag)
	default:
		return "", fmt.Errorf("upload %s: %w", s.loc, err)
	}
	if err := verifyObject(ctx, s.c, s.loc, etag, s.Size(), s.SHA256()); err != nil {
		return "", err
	}
	s.close()
	os.RemoveAll(s.dir)
	return s.loc.String(), nil
}

// ErrReadBack is an uploaded object that does not read back as written.
var ErrReadBack = errors.New("the object does not read back as written")

// verifyObject reads loc back, the version with etag, and checks that it
// holds size bytes whose SHA-256 is sum.
func verifyObject(ctx context.Context, c S3, loc S3Location, etag string, size int64, sum string) error {
	in := &s3.GetObjectInput{Bucket: aws.String(loc.Bucket), Key: aws.String(loc.Key)}
	if etag != "" {
		in.IfMatch = aws.String(etag)
	}
	obj, err := c.GetObject(ctx, in)
	if err != nil {
		return fmt.Errorf("read back %s: %w: %v", loc, ErrReadBack, err)
	}
	defer obj.Body.Close()
	h := sha256.New()
	n, err := io.Copy(h, obj.Body)
	if err != nil {
		return fmt.Errorf("read back %s: %w: %v", loc, ErrReadBack, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); n != size || got != sum {
		return fmt.Errorf("read back %s: %w: %d bytes, sha256 %s; wrote %d bytes, sha256 %s", loc, ErrReadBack, n, got, size, sum)
	}
	return nil
}

func (s *s3Sink) Abort() {
	s.fileSink.Abort() // a staged copy: the object, once uploaded, is the durable one
	os.RemoveAll(s.dir)
}

// errNoObject is an object that does not exist (404): past the last part.
var errNoObject = errors.New("no such object")

// download copies loc into a private temporary file and returns it open
// at its start; remove deletes it. head checks the bucket first.
func download(ctx context.Context, c S3, loc S3Location, head bool) (f *os.File, remove func(), err error) {
	if head {
		if _, err := c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(loc.Bucket)}); err != nil {
			return nil, nil, bucketError(loc, err)
		}
	}
	out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(loc.Bucket), Key: aws.String(loc.Key)})
	if err != nil {
		if httpStatus(err) == http.StatusNotFound {
			return nil, nil, fmt.Errorf("%s: %w: %w", loc, errNoObject, ErrBucketNotFound)
		}
		return nil, nil, bucketError(loc, err)
	}
	defer out.Body.Close()
	dir, err := os.MkdirTemp("", "mfdlq-import-")
	if err != nil {
		return nil, nil, err
	}
	remove = func() { os.RemoveAll(dir) }
	f, err = createTemp(dir, "export")
	if err == nil {
		_, err = io.Copy(f, out.Body)
	}
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		if f != nil {
			f.Close()
		}
		remove()
		return nil, nil, fmt.Errorf("download %s: %w", loc, err)
	}
	return f, remove, nil
}

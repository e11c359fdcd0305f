package incidents3

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// API is the S3 calls of incidents in S3, with the SDK's signatures so
// that *s3.Client satisfies it: s3:GetObject and s3:PutObject on the
// prefix, s3:ListBucket limited to it (a pull lists the incident's
// objects; ls --incidents lists the incidents). mfdlq never deletes an
// incident's object.
type API interface {
	GetObject(ctx context.Context, in *s3.GetObjectInput, optFns ...func(*s3.Options)) (*s3.GetObjectOutput, error)
	PutObject(ctx context.Context, in *s3.PutObjectInput, optFns ...func(*s3.Options)) (*s3.PutObjectOutput, error)
	ListObjectsV2(ctx context.Context, in *s3.ListObjectsV2Input, optFns ...func(*s3.Options)) (*s3.ListObjectsV2Output, error)
}

var _ API = (*s3.Client)(nil)

// Package s3 reads a model from an S3 bucket, on AWS or on an
// S3-compatible store (SeaweedFS, Ceph, MinIO, R2…), as a [source.FS]:
// s3://BUCKET/PREFIX/ is a model laid out under a prefix (config, index and
// shards, or one GGUF), s3://BUCKET/KEY one file. See [ParseLocation].
//
// # Requests
//
// This package only locates, authenticates and lists. The bytes are read
// by package source/remote, through a [remote.Store]: its ranged GETs,
// lazy chunks, memory and disk caches, readahead, retries and timeouts are
// the same as over HTTP, so a header-only check costs one request per
// shard (two for a header over a mebibyte), plus one ListObjectsV2
// request when the location is opened: it tells a prefix from a key,
// finds a missing bucket, wrong credentials, a wrong region or an
// endpoint that is not S3 before anything else is read, and gives the
// names beside the weights. Every GET after a file's first carries
// If-Match with the ETag the first saw: an object overwritten under a
// mount answers 412, a read error (EIO), never a mix of two versions.
// 503 SlowDown is retried with backoff like any 5xx.
//
// # Credentials and endpoints
//
// The AWS conventions, through aws-sdk-go-v2's config loader:
// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN;
// AWS_PROFILE with ~/.aws/credentials and ~/.aws/config (SSO, assumed
// roles, credential processes); the instance's role on EC2; AWS_REGION
// (default us-east-1). AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL (or a
// profile's endpoint_url) name a store other than AWS, addressed
// path-style (ENDPOINT/BUCKET/KEY); on AWS a bucket is addressed
// virtual-hosted (BUCKET.s3.REGION.amazonaws.com) unless its name has a
// dot. Requests are signed with Signature Version 4, with the hash of the
// empty payload; they carry no checksum headers. [remote.Options]
// NoSignRequest sends them unsigned, for a public bucket.
//
// # Errors
//
// Errors are [*Error] values with a stable [Code], one line naming the
// s3:// location: access denied, no credentials (suggesting
// --no-sign-request), no such bucket, no such key, wrong region (naming
// the bucket's region), an endpoint that is not S3. Secrets never appear
// in them, nor in [FS.String] or a file's Name.
package s3
